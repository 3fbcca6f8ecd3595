// The built-in SWE environment for real, in its sandbox: every shipped task's tests fail on its files as shipped and
// pass after its reference fix; the tools' answers (read, search, edit, run_tests, submit, refusals); the final patch
// (applies with `patch -p1` to the original files and makes their tests pass); the test files put back before
// scoring; and over HTTP, /evaluate's answer carrying the patch and the patches file holding it with the episode id.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEnvironmentServer } from "../../environments/environment-server.ts";
import { repositoryTaskSchema, type RepositoryTask } from "../../environments/swe/repository-task.ts";
import { SWE_TASKS, SweEnvironment, type SweEpisode } from "../../environments/swe/swe-environment.ts";
import { TaskCatalogue } from "../../environments/task-catalogue.ts";
import type { Evaluation } from "../../environments/environment.ts";

let environment: SweEnvironment;
let tasks: RepositoryTask[];
let folder: string;

beforeAll(async () => {
  environment = await SweEnvironment.open();
  tasks = (await TaskCatalogue.read(SWE_TASKS, repositoryTaskSchema as never)).tasks as RepositoryTask[];
  folder = await mkdtemp(path.join(tmpdir(), "swe-environment-"));
});

afterAll(() => rm(folder, { recursive: true, force: true }));

const scoreOf = async (episode: SweEpisode) => ((await environment.evaluate(episode)) as Evaluation).score;
const edit = (episode: SweEpisode, replacement: { path: string; old_text: string; new_text: string }) => environment.execTool(episode, { name: "edit_file", arguments: replacement });

describe("the SWE environment", () => {
  it("ships 12 tasks, and 3 held out, whose tests fail as shipped and pass after the reference fix, whose patch is that fix", async () => {
    expect(tasks.length).toBe(12);
    const heldOut = (await TaskCatalogue.read(path.join(path.dirname(SWE_TASKS), "held-out.jsonl"), repositoryTaskSchema as never)).tasks as RepositoryTask[];
    expect(heldOut.map((task) => task.task_path)).toEqual(["average", "clamp", "initials"]);
    for (const task of [...tasks, ...heldOut]) {
      const { state } = await environment.reset(task);
      expect(await scoreOf(state), `${task.task_path} before`).toBe(0);
      expect(await environment.execTool(state, { name: "run_tests", arguments: {} }), task.task_path).toMatch(/^FAILED: /);
      for (const replacement of task.reference_fix) expect(await edit(state, replacement), task.task_path).toMatch(/^edited /);
      expect(await environment.execTool(state, { name: "run_tests", arguments: {} }), task.task_path).toMatch(/^PASSED: [\s\S]*ok: \d+ checks passed$/);
      const evaluation = (await environment.evaluate(state)) as Evaluation;
      expect(evaluation.score, `${task.task_path} after`).toBe(1);
      // the patch, applied to the shipped files, is the fix
      const original = path.join(folder, task.task_path);
      for (const [file, content] of Object.entries(task.files)) await writeFile(path.join(await ensure(original), file), content);
      const patch = String(evaluation.details?.patch);
      expect(patch).toContain(`--- a/${task.reference_fix[0]!.path}\n+++ b/${task.reference_fix[0]!.path}\n`);
      expect(patch).toContain(`-${task.reference_fix[0]!.old_text}\n+${task.reference_fix[0]!.new_text}\n`);
      await execa("patch", ["-p1", "--quiet"], { cwd: original, input: patch });
      expect((await execa("bash", ["-c", task.test_command], { cwd: original, reject: false })).exitCode, task.task_path).toBe(0);
      await environment.close(state);
    }
  }, 120_000);

  it("answers each tool: the issue and file list, read, search, edit refusals, run_tests, submit, unknown tools", async () => {
    const { userMessage, toolSchemas, state } = await environment.reset({ task_name: "swe", task_path: "grades" });
    expect(userMessage).toMatch(/^`python3 test_grades.py` fails: [\s\S]*\n\nFiles: grades.py, test_grades.py\n\n/);
    expect((toolSchemas as Array<{ function: { name: string } }>).map((tool) => tool.function.name)).toEqual(["read_file", "search", "edit_file", "run_tests", "submit"]);
    const call = (name: string, args: unknown) => environment.execTool(state, { name, arguments: args });
    expect(await call("read_file", { path: "grades.py" })).toBe(tasks.find((task) => task.task_path === "grades")!.files["grades.py"]!.trimEnd());
    expect(await call("read_file", { path: "../etc/passwd" })).toBe("error: '../etc/passwd' is not a path inside the repository (relative, without ..)");
    expect(await call("read_file", { path: "/etc/passwd" })).toMatch(/^error: '\/etc\/passwd' is not a path inside/);
    expect(await call("read_file", { path: "nothing.py" })).toBe("error: no file nothing.py");
    expect(await call("search", { pattern: "score >" })).toBe("./grades.py:3:    if score >= 90:\n./grades.py:5:    if score > 80:");
    expect(await call("search", { pattern: "zebra" })).toBe('no line contains "zebra"');
    expect(await call("edit_file", { path: "grades.py", old_text: "return", new_text: "yield" })).toMatch(/^error: old_text occurs 3 times in grades.py/);
    expect(await call("edit_file", { path: "grades.py", old_text: "score > 99", new_text: "x" })).toMatch(/^error: old_text occurs 0 times/);
    expect(await call("edit_file", { path: "grades.py" })).toMatch(/^error: edit_file: argument old_text: /);
    expect(await call("run_tests", {})).toMatch(/^FAILED: `python3 test_grades.py`\nFAIL letter\(80\) == 'C', expected 'B'\n1 of 5 checks FAILED\nerror: exit code 1$/);
    expect(await call("edit_file", { path: "grades.py", old_text: "score > 80", new_text: "score >= 80" })).toBe("edited grades.py: replaced 1 line(s) at line 5 with 1 line(s)");
    expect(await call("submit", {})).toMatch(/^submitted/);
    expect(await call("submit", {})).toBe("error: the fix was already submitted");
    expect(await call("edit_file", { path: "grades.py", old_text: "score >= 80", new_text: "score > 80" })).toBe("error: the fix was submitted; the files are final");
    expect(await call("python", {})).toBe("error: no tool named python; the tools are read_file, search, edit_file, run_tests, submit");
    expect(await scoreOf(state)).toBe(1);
    await environment.close(state);
  });

  it("scores with the test files as shipped: editing a test to pass does not count, and shows in the patch", async () => {
    const { state } = await environment.reset({ task_name: "swe", task_path: "weather" });
    expect(await edit(state, { path: "test_weather.py", old_text: "('boiling(100)', True),", new_text: "('boiling(100)', False)," })).toMatch(/^edited /);
    expect(await environment.execTool(state, { name: "run_tests", arguments: {} })).toMatch(/^PASSED/);
    const evaluation = (await environment.evaluate(state)) as Evaluation;
    expect(evaluation.score).toBe(0);
    expect(evaluation.details?.patch).toMatch(/^--- a\/test_weather.py\n\+\+\+ b\/test_weather.py\n@@ /);
    await environment.close(state);
  });

  it("refuses a task whose files cannot be written into the sandbox, naming it", async () => {
    const task = { ...tasks[0]!, task_path: "escaping", files: { ...tasks[0]!.files, "../outside.py": "x = 1\n" } };
    await expect(environment.reset(task)).rejects.toThrow(/^writing the files of swe:escaping failed: .*/s);
    await expect(environment.reset(task)).rejects.toMatchObject({ code: "BAD_REQUEST", path: "swe:escaping", hint: "file paths must be relative, without .." });
  });

  it("over HTTP: /evaluate answers the score and the patch; the patches file holds it under the run_ctx's episode id", async () => {
    const patches = path.join(folder, "patches.jsonl");
    const server = await startEnvironmentServer({ kind: "swe", port: 0, slots: 2, patches });
    const post = async (route: string, body: unknown) => (await fetch(`${server.url}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json() as Promise<Record<string, any>>;
    try {
      const { lease_id } = await post("/allocate", { task_key: "swe:series", request_id: "swe:series:run-1:0:3" });
      const reset = await post("/reset", { lease_id, task_meta: { task_name: "swe", task_path: "series" }, run_ctx: { episode_id: "swe:series:run-1:0:3" } });
      expect(reset.ok).toBe(true);
      const fix = tasks.find((task) => task.task_path === "series")!.reference_fix[0]!;
      expect((await post("/exec_tool", { lease_id, tool_call: { name: "edit_file", arguments: fix } })).observation).toMatch(/^edited series.py/);
      const evaluation = await post("/evaluate", { lease_id });
      expect(evaluation).toMatchObject({ ok: true, score: 1, patch: expect.stringContaining(`+${fix.new_text}\n`) });
      await post("/close", { lease_id });
      const records = (await readFile(patches, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records).toEqual([{ episode_id: "swe:series:run-1:0:3", task_key: "swe:series", score: 1, submitted: false, patch: evaluation.patch, at: expect.any(String) }]);
    } finally {
      await server.close();
    }
  });
});

async function ensure(folderPath: string): Promise<string> {
  await execa("mkdir", ["-p", folderPath]);
  return folderPath;
}
