// The model-args file whose MODEL_ARGS give Megatron the architecture (sourced in bash, as the plan does).
// Ignores the slime checkout itself (installation-check.ts) and the FSDP backend (it reads the checkpoint).
import type { Recipe } from "../../contracts/recipe.ts";
import { readModelArgs } from "../slime/model-args.ts";
import { failed, passed, type CheckResult } from "./check-result.ts";

export async function checkModelArgs(recipe: Recipe): Promise<CheckResult> {
  if (recipe.derived.trainingBackend !== "megatron") return passed("model-args", "not needed: the fsdp backend loads the architecture from the checkpoint");
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
