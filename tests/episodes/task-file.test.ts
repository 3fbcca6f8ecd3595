// The general-agent task file: one {"task_meta": {...}} per line, task keys task_name:task_path, episode ids as the
// reference makes request ids, and the errors a user sees for a bad file (file, line, what is wrong). The recipe's
// episodes section: defaults, and env_url without tasks refused by name.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import { episodeId, readTasks } from "../../orchestrator/episodes/task-file.ts";

async function file(text: string): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), "tasks-"));
  const name = path.join(folder, "tasks.jsonl");
  await writeFile(name, text);
  return name;
}

describe("task file", () => {
  it("reads tasks and keys them task_name:task_path; episode ids are task_key:uid:group:sample", async () => {
    const tasks = await readTasks(await file('{"task_meta": {"task_name": "math", "task_path": "add/1", "a": 2}}\n\n{"task_meta": {"task_name": "shell", "task_path": "ls"}}\n'));
    expect(tasks).toEqual([
      { key: "math:add/1", meta: { task_name: "math", task_path: "add/1", a: 2 } },
      { key: "shell:ls", meta: { task_name: "shell", task_path: "ls" } },
    ]);
    expect(episodeId(tasks[0]!.key, "u7", 3, 1)).toBe("math:add/1:u7:3:1");
  });

  it("reads the reference's terminal task files as its converter writes them: one {task: {task_name, task_path, instruction, data_source}} per line", async () => {
    // the line shape of terminal-rl/data_utils/convert_task_to_dataset.py@0d034dd5 (pandas to_json of {"task": record})
    const line = '{"task":{"task_name":"hello-file","task_path":"tasks/hello-file","instruction":"Create hello.txt containing Hello","data_source":"terminal_bench"}}';
    const tasks = await readTasks(await file(`${line}\n`));
    expect(tasks).toEqual([{ key: "hello-file:tasks/hello-file", meta: { task_name: "hello-file", task_path: "tasks/hello-file", instruction: "Create hello.txt containing Hello", data_source: "terminal_bench" } }]);
  });

  it("names the file, each bad line and what is wrong; an empty file and a missing one are refused too", async () => {
    const bad = await file('{"task_meta": {"task_name": "a", "task_path": "b"}}\nnot json\n{"meta": {}}\n{"task_meta": {"task_name": "x"}}\n');
    await expect(readTasks(bad)).rejects.toMatchObject({
      code: "RECIPE_INVALID",
      path: "episodes.tasks",
      message: `${bad}: line 2 is not JSON; line 3 has no task_meta (or task) object; line 4: task_meta needs task_name and task_path (strings), which make the task key`,
    });
    await expect(readTasks(await file("\n"))).rejects.toThrow(/holds no task/);
    await expect(readTasks("/nonexistent/tasks.jsonl")).rejects.toThrow(/cannot read the task file \/nonexistent\/tasks\.jsonl/);
  });

  it("recipe: episodes are off by default; env_url without tasks is refused by key, and a built-in environment with another protocol", () => {
    expect(recipeSchema.parse({}).episodes).toEqual({ samples_per_task: 8, max_steps: 10, prm_step_coef: 1, concurrency: 16, epochs: 1, group_timeout_s: 1800, environment_port: 18090, env_protocol: "lease" });
    expect(recipeSchema.parse({ episodes: { env_url: "http://127.0.0.1:18090", tasks: "t.jsonl", env_protocol: "swe" } }).episodes.env_protocol).toBe("swe");
    const gui = recipeSchema.safeParse({ episodes: { environment: "terminal", env_protocol: "gui" } });
    expect(gui.error?.issues[0]).toMatchObject({ path: ["episodes", "env_protocol"], message: expect.stringContaining("the built-in terminal environment speaks the lease protocol") });
    const refused = recipeSchema.safeParse({ episodes: { env_url: "http://127.0.0.1:18090" } });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({ path: ["episodes", "tasks"], message: expect.stringContaining("episodes.tasks (a JSONL file of tasks) is required") });
  });
});
