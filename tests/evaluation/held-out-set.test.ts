// The held-out sets' checks: a persona file's bad lines and repeated ids are named, a held-out task that is also a
// training task is refused by key, a built-in environment's held-out tasks are the default, and `openclaw-rl eval`
// refuses checkpoints ("not yet") and a folder with no start.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import { heldOutTasksFile, readEvaluationSet } from "../../orchestrator/evaluation/evaluation-plan.ts";
import { readHeldOutTasks, readPersonaSet, SHIPPED_PERSONAS } from "../../orchestrator/evaluation/held-out-set.ts";
import { runCliInProcess } from "../cli/cli-process.ts";

describe("held-out sets", () => {
  let folder: string;
  beforeAll(async () => void (folder = await mkdtemp(path.join(tmpdir(), "held-out-"))));
  afterAll(async () => rm(folder, { recursive: true, force: true }));

  it("the shipped personas parse: the student, the teacher and everyday users", async () => {
    const openers = await readPersonaSet(SHIPPED_PERSONAS);
    expect(openers.map((opener) => opener.id)).toEqual(expect.arrayContaining(["student-essay", "teacher-feedback", "everyday-cooking"]));
    expect(openers.every((opener) => opener.turns === 3)).toBe(true);
  });

  it("names a bad line, a missing key and a repeated id", async () => {
    const file = path.join(folder, "personas.jsonl");
    const good = { id: "a", persona: "p", opener: "o", rubric: "r" };
    await writeFile(file, [JSON.stringify(good), "not json", JSON.stringify({ id: "b", persona: "p", opener: "o" }), JSON.stringify(good)].join("\n"));
    await expect(readPersonaSet(file)).rejects.toThrow(/line 2 is not JSON; line 3: rubric .*; id a appears twice/);
  });

  it("refuses held-out tasks that are training tasks, by key", async () => {
    const task = (name: string) => JSON.stringify({ task_meta: { task_name: name, task_path: "math" } });
    const heldOut = path.join(folder, "held-out.jsonl");
    const training = path.join(folder, "training.jsonl");
    await writeFile(heldOut, [task("t1"), task("t2")].join("\n"));
    await writeFile(training, [task("t2"), task("t3")].join("\n"));
    await expect(readHeldOutTasks(heldOut, training)).rejects.toThrow(/held-out tasks are also training tasks \(episodes.tasks\): t2:math/);
    await writeFile(training, task("t3"));
    expect((await readHeldOutTasks(heldOut, training)).map((entry) => entry.key)).toEqual(["t1:math", "t2:math"]);
  });

  it("the recipe refuses held-out tasks without an environment, naming evaluation.tasks", () => {
    const parsed = recipeSchema.safeParse({ evaluation: { tasks: "held-out.jsonl" } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`)).toContain(
      "evaluation.tasks: held-out tasks run in the episodes' environment: set episodes.env_url or episodes.environment, or remove evaluation.tasks",
    );
    expect(recipeSchema.safeParse({ evaluation: { tasks: "held-out.jsonl" }, episodes: { environment: "toolcall" } }).success).toBe(true);
  });

  it("held-out tasks by default: a built-in environment's own on its shipped training tasks; none on the user's tasks or another server", async () => {
    const shipped = (name: string) => path.resolve(import.meta.dirname, "..", "..", "environments", name, "held-out.jsonl");
    for (const name of ["toolcall", "terminal", "swe"]) {
      const recipe = recipeSchema.parse({ episodes: { environment: name } });
      expect(heldOutTasksFile(recipe)).toBe(shipped(name));
      expect((await readEvaluationSet(recipe)).tasks.length, name).toBeGreaterThanOrEqual(3); // (none of them a training task: refused otherwise)
    }
    expect(heldOutTasksFile(recipeSchema.parse({ episodes: { environment: "toolcall", tasks: "mine.jsonl" } }))).toBeNull();
    expect(heldOutTasksFile(recipeSchema.parse({ episodes: { env_url: "http://127.0.0.1:9", tasks: "mine.jsonl" } }))).toBeNull();
    expect(heldOutTasksFile(recipeSchema.parse({ episodes: { environment: "toolcall" }, evaluation: { tasks: "chosen.jsonl" } }))).toBe("chosen.jsonl");
    expect(heldOutTasksFile(recipeSchema.parse({}))).toBeNull();
  });

  it("openclaw-rl eval refuses a rehearsal checkpoint that is no saved policy and a folder without a running start", async () => {
    const checkpoint = await runCliInProcess(["eval", "--run", folder, "--checkpoint", path.join(folder, "iter_0000004")]);
    expect(checkpoint.exitCode).toBe(2);
    expect(checkpoint.stderr).toMatch(/iter_0000004 is not a saved stand-in policy \(policy-vN\.json\)/);
    const empty = await runCliInProcess(["eval", "--run", folder]);
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toMatch(/no running openclaw-rl recorded in .*admin\.json missing/);
  });
});
