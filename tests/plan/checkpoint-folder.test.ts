// What a restart may --load: a checkpoint folder as Megatron and the fork's FSDP backend leave it (tracker file
// naming an iteration folder), and the restarted job of a real plan, before and after its first save.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkpointIn, TRACKER_FILE } from "../../launchers/slime/checkpoint-folder.ts";
import { defineChildren } from "../../launchers/supervisor/plan-children.ts";
import { loadRecipe } from "../../cli/recipe-file.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";
import { GOLDEN_CONTEXT, MODEL_ARGS_FIXTURE, REPO_ROOT } from "../golden/golden-plan.ts";

function folder(files: Record<string, string | null>): string {
  const root = mkdtempSync(path.join(tmpdir(), "checkpoint-"));
  for (const [name, content] of Object.entries(files)) {
    if (content === null) mkdirSync(path.join(root, name), { recursive: true });
    else writeFileSync(path.join(root, name), content);
  }
  return root;
}

type LoaderFact = { tracker_holds: string[]; loads: string };
const RESUME = (JSON.parse(readFileSync(path.join(REPO_ROOT, "tests", "fixtures", "checkpoint-facts.json"), "utf8")) as {
  resume: { tracker: string; megatron: LoaderFact; fsdp: LoaderFact };
}).resume;

describe("checkpoint folder", () => {
  it.each(["megatron", "fsdp"] as const)("%s: loads what slime's loader reads (checkpoint-facts.json, resume)", (backend) => {
    expect(TRACKER_FILE).toBe(RESUME.tracker);
    for (const iteration of RESUME[backend].tracker_holds) {
      const loaded = iteration === "release" ? "release" : `iter_${iteration.padStart(7, "0")}`;
      const needed = RESUME[backend].loads.split(",")[0]!.replace("iter_%07d", loaded);
      expect(RESUME[backend].loads.includes(iteration === "release" ? "release" : "iter_%07d")).toBe(true);
      const root = folder({ [RESUME.tracker]: `${iteration}\n`, [needed]: null });
      expect(checkpointIn(root, backend)).toEqual({ kind: "loadable", iteration: iteration === "release" ? "release" : Number(iteration), folder: path.join(root, loaded) });
      if (backend === "fsdp") expect(checkpointIn(folder({ [RESUME.tracker]: iteration, [loaded]: null }), backend).kind).toBe("none");
    }
  });

  it("nothing to load: missing, empty, a tracker without its iteration folder, a tracker that is not a number", () => {
    expect(checkpointIn(path.join(tmpdir(), "no-such-checkpoints"), "megatron")).toMatchObject({ kind: "none", why: expect.stringMatching(/no latest_checkpointed_iteration\.txt/) });
    expect(checkpointIn(folder({}), "megatron").kind).toBe("none");
    expect(checkpointIn(folder({ "latest_checkpointed_iteration.txt": "100" }), "megatron")).toMatchObject({ kind: "none", why: expect.stringMatching(/iter_0000100 is missing/) });
    expect(checkpointIn(folder({ "latest_checkpointed_iteration.txt": "oops", oops: null }), "megatron")).toMatchObject({ kind: "none", why: expect.stringMatching(/not an iteration number/) });
  });

  it("Megatron: the tracker's iteration folder (or release); FSDP: that folder's model/", () => {
    expect(checkpointIn(folder({ "iter_0000099": null, "latest_checkpointed_iteration.txt": "99\n" }), "megatron")).toMatchObject({ kind: "loadable", iteration: 99 });
    expect(checkpointIn(folder({ release: null, "latest_checkpointed_iteration.txt": "release" }), "megatron")).toMatchObject({ kind: "loadable", iteration: "release" });
    expect(checkpointIn(folder({ release: null, "latest_checkpointed_iteration.txt": "release" }), "fsdp").kind).toBe("none");
    expect(checkpointIn(folder({ "iter_0000001": null, "latest_checkpointed_iteration.txt": "1" }), "fsdp")).toMatchObject({ kind: "none", why: expect.stringMatching(/model is missing/) });
    expect(checkpointIn(folder({ "iter_0000001/model": null, "latest_checkpointed_iteration.txt": "1" }), "fsdp")).toMatchObject({ kind: "loadable", iteration: 1 });
  });
});

describe("the restarted slime job of a real plan", () => {
  async function restartedArgv(recipeName: string, runDir: string, set: string[] = []): Promise<string[]> {
    const { recipe } = loadRecipe({
      recipe: path.join(REPO_ROOT, "configs", `${recipeName}.yaml`),
      set: [`engine.slime.model_args=${MODEL_ARGS_FIXTURE}`, "training.restart_on_crash=true", ...set],
    });
    const plan = await buildLaunchPlan(recipe, { ...GOLDEN_CONTEXT, runDir }, { strict: true });
    const job = defineChildren(plan, recipe, { bridgeHello: () => null, baseEnvironment: {} }).find((child) => child.name === "slime-job")!;
    return job.respawn!(job.spec!, 1).argv;
  }

  it("before the first save: no --load (as the first start); after it: --load <save dir>", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "restart-run-"));
    const before = await restartedArgv("qwen3-4b-binary", runDir);
    expect(before).not.toContain("--load");
    const save = before[before.indexOf("--save") + 1]!;
    expect(save).toBe(path.join(runDir, "checkpoints"));
    mkdirSync(path.join(save, "iter_0000099"), { recursive: true });
    writeFileSync(path.join(save, "latest_checkpointed_iteration.txt"), "99");
    const after = await restartedArgv("qwen3-4b-binary", runDir);
    expect(after.slice(-2)).toEqual(["--load", save]);
  });

  it("the recipe's own training.load_dir stays until the run has saved a checkpoint of its own", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "restart-run-"));
    const previous = mkdtempSync(path.join(tmpdir(), "previous-run-"));
    mkdirSync(path.join(previous, "iter_0000199"));
    writeFileSync(path.join(previous, "latest_checkpointed_iteration.txt"), "199");
    const argv = await restartedArgv("qwen3-4b-binary", runDir, [`training.load_dir=${previous}`]);
    expect(argv[argv.indexOf("--load") + 1]).toBe(previous);
    expect(argv.filter((value) => value === "--load")).toHaveLength(1);
  });
});
