// Doctor: the slime checkout (train_async.py), whether it is the OpenClaw-RL fork with --prm-* flags (needed by
// judge.launch slime), and the model-args file. Ignores slime's Python dependencies (python-check does those).
import { readFile, access } from "node:fs/promises";
import path from "node:path";
import type { Recipe } from "../../contracts/recipe.ts";
import { trainingBackend } from "../../contracts/recipe.ts";
import { readModelArgs } from "../slime/model-args.ts";
import { failed, passed, skipped, warned, type CheckResult } from "./doctor-check.ts";

/** True when the slime checkout's arguments.py defines the fork's --prm-enable flag. */
export async function slimeHasPrmFlags(slimeRoot: string): Promise<boolean | null> {
  try {
    return (await readFile(path.join(slimeRoot, "slime", "utils", "arguments.py"), "utf8")).includes("--prm-enable");
  } catch {
    return null;
  }
}

export async function checkSlime(recipe: Recipe): Promise<CheckResult[]> {
  const root = recipe.engine.slime.root;
  try {
    await access(path.join(root, "train_async.py"));
  } catch {
    return [failed("slime", `engine.slime.root (${root}) holds no train_async.py`, "clone slime (the OpenClaw-RL fork for judge.launch slime) and set engine.slime.root to it")];
  }
  const results = [passed("slime", `${root} holds train_async.py`)];
  const fork = await slimeHasPrmFlags(root);
  if (recipe.judge.launch === "slime") {
    results.push(
      fork
        ? passed("slime", "slime has the OpenClaw-RL fork's --prm-* flags (judge.launch slime)")
        : failed("slime", `judge.launch is slime but ${root}/slime/utils/arguments.py has no --prm-enable (upstream slime)`, "use judge.launch: standalone (a separate SGLang server on the PRM GPUs), or the slime fork from Gen-Verse/OpenClaw-RL"),
    );
  } else if (fork === null) {
    results.push(warned("slime", `cannot read ${root}/slime/utils/arguments.py`, "check engine.slime.root"));
  }
  results.push(await checkModelArgs(recipe));
  return results;
}

async function checkModelArgs(recipe: Recipe): Promise<CheckResult> {
  if (trainingBackend(recipe) !== "megatron") return skipped("model-args", "the fsdp backend loads the architecture from the checkpoint");
  try {
    const modelArgs = await readModelArgs(recipe);
    if (modelArgs.kind === "missing") {
      return failed("model-args", `${modelArgs.file} not found`, "set engine.slime.model_args to slime's scripts/models/<model>.sh for your model");
    }
    return passed("model-args", `${modelArgs.file}: ${modelArgs.args.length} MODEL_ARGS tokens`);
  } catch (error) {
    return failed("model-args", (error as Error).message, "fix the file so `source FILE` defines the MODEL_ARGS array");
  }
}
