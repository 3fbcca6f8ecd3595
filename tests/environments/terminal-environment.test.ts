// The terminal environment served for real and driven with the project's EnvironmentClient: every shipped task scores
// 0 after its setup alone and 1 after a known solution, commands run without network, a failing command is an
// observation, and a task whose setup fails is refused at /reset.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEnvironmentServer, type RunningEnvironmentServer } from "../../environments/environment-server.ts";
import { TaskCatalogue } from "../../environments/task-catalogue.ts";
import { shellTaskSchema } from "../../environments/terminal/shell-task.ts";
import { TERMINAL_TASKS } from "../../environments/terminal/terminal-environment.ts";
import { EnvironmentClient } from "../../orchestrator/episodes/environment-client.ts";

/** A solution of each shipped task, as a model could type it. */
const SOLUTIONS: Record<string, string> = {
  "hello-file": "echo hi > hello.txt",
  "count-lines": "wc -l < data.csv > answer.txt",
  "make-tree": "mkdir -p project/src project/tests && touch project/README.md",
  "rename-extension": 'for f in *.txt; do mv "$f" "${f%.txt}.md"; done',
  "sum-column": "awk -F, 'NR > 1 { total += $3 } END { print total }' sales.csv > total.txt",
  "find-error": "basename $(grep -l ERROR logs/*) > answer.txt",
  "sort-unique": "sort -u words.txt > unique.txt",
  "executable-script": "printf '#!/bin/sh\\necho ready\\n' > run.sh && chmod +x run.sh",
  "enable-debug": "sed -i 's/^debug=false$/debug=true/' config.ini",
  "largest-file": "ls -S data | head -1 > answer.txt",
  "json-field": "python3 -c 'import json; print(json.load(open(\"user.json\"))[\"email\"])' > email.txt",
  "delete-temporary": "find . -name '*.tmp' -delete",
};

/** A solution of each task it ships held out (held-out.jsonl: the default of `eval` on this environment). */
const HELD_OUT_SOLUTIONS: Record<string, string> = {
  "held-word-count": "wc -w < poem.txt > answer.txt",
  "held-copy-file": "mkdir -p backup && cp notes/todo.txt backup/todo.txt",
  "held-max-value": "sort -n numbers.txt | tail -1 > answer.txt",
  "held-uppercase": "tr a-z A-Z < name.txt > upper.txt",
};

let server: RunningEnvironmentServer;
let client: EnvironmentClient;

beforeAll(async () => {
  server = await startEnvironmentServer({ kind: "terminal", port: 0, slots: 4, sandbox: { wallTimeoutMs: 3000 } });
  client = new EnvironmentClient(server.url);
});

afterAll(() => server.close());

async function start(taskMeta: Record<string, unknown>): Promise<{ lease: string; userMessage: string; toolSchemas: unknown[] }> {
  const lease = await client.allocate(`terminal:${String(taskMeta.task_path)}`, `terminal:${String(taskMeta.task_path)}:${Math.random()}`);
  return { lease, ...(await client.reset(lease, taskMeta)) };
}

const run = (lease: string, command: string) => client.execTool(lease, { name: "run_command", arguments: { command } });

describe("the terminal environment", () => {
  it("runs a whole episode: the task, a run_command tool, 0 before the work and 1 after", async () => {
    const { lease, userMessage, toolSchemas } = await start({ task_name: "terminal", task_path: "hello-file" });
    expect(userMessage).toMatch(/^Create a file hello.txt/);
    expect(toolSchemas).toEqual([expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "run_command" }) })]);
    expect(await client.evaluate(lease)).toBe(0);
    expect(await run(lease, "echo hi > hello.txt && cat hello.txt")).toBe("hi");
    expect(await client.evaluate(lease)).toBe(1);
    await client.close(lease);
  });

  it("ships tasks, and others held out, that each fail after setup alone and pass after a solution", async () => {
    for (const [file, solutions] of [[TERMINAL_TASKS, SOLUTIONS], [path.join(path.dirname(TERMINAL_TASKS), "held-out.jsonl"), HELD_OUT_SOLUTIONS]] as const) {
      const catalogue = await TaskCatalogue.read(file, shellTaskSchema);
      expect(catalogue.tasks.map((task) => task.task_path).sort()).toEqual(Object.keys(solutions).sort());
      for (const task of catalogue.tasks) {
        const { lease } = await start(task);
        expect(await client.evaluate(lease), `${task.task_path} before`).toBe(0);
        await run(lease, solutions[task.task_path]!);
        expect(await client.evaluate(lease), `${task.task_path} after`).toBe(1);
        await client.close(lease);
      }
    }
  });

  it("gives a failing command, bad arguments and an unknown tool back as observations, without network", async () => {
    const { lease } = await start({ task_name: "terminal", task_path: "count-lines" });
    expect(await run(lease, "cat missing.txt")).toMatch(/^stderr:\ncat: missing.txt: No such file or directory\nerror: exit code 1$/);
    expect(await run(lease, "sleep 30")).toBe("error: timed out after 3 s and was killed");
    expect(await run(lease, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")).toBe("lo");
    expect(await run(lease, "exec 3<>/dev/tcp/1.1.1.1/53 && echo connected")).toMatch(/Network is unreachable[\s\S]*error: exit code 1$/);
    expect(await client.execTool(lease, { name: "run_command", arguments: { cmd: "ls" } })).toMatch(/^error: run_command: argument command: /);
    expect(await client.execTool(lease, { name: "python", arguments: {} })).toBe("error: no tool named python; the only tool is run_command");
    expect(await run(lease, "wc -l < data.csv")).toBe("137");
  });

  it("refuses a task whose setup fails, naming it", async () => {
    const lease = await client.allocate("terminal:broken", "terminal:broken:0");
    await expect(client.reset(lease, { task_name: "terminal", task_path: "broken", instruction: "x", setup: "exit 3", check: "true" })).rejects.toThrow(
      /500.*the setup of terminal:broken failed: error: exit code 3/,
    );
  });
});
