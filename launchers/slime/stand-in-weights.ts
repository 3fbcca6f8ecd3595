// The recipe paths slime and its judge load weights from, refused when one is the stand-in builtin:qwen3 (a tokenizer
// and chat template, no weights), with one hint that fixes them all. Ignores tokenizer paths.
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { BUILTIN_QWEN3 } from "../../lib/model/model-files.ts";

/** Where a downloaded checkpoint goes in the hint's command: a placeholder that reads as one. */
export const CHECKPOINT_PLACEHOLDER = "/path/to/Qwen3-4B";

/**
 * One error per weight path (model.path, judge.path, training.ref_load) that is builtin:qwen3 on engine.kind slime;
 * the last carries the one hint that fixes them all (a --set per refused key), so it is printed once.
 */
export function standInWeightErrors(recipe: Recipe): OpenclawRlError[] {
  if (recipe.engine.kind !== "slime") return [];
  const judgeRuns = recipe.judge.launch !== "external";
  const paths: Array<[string, string | undefined]> = [
    ["model.path", recipe.model.path],
    ["judge.path", judgeRuns ? recipe.judge.path : undefined],
    ["training.ref_load", recipe.training.ref_load],
  ];
  const refused = paths.filter(([, value]) => value === BUILTIN_QWEN3).map(([key]) => key);
  const sets = refused.map((key) => `--set ${key}=${CHECKPOINT_PLACEHOLDER}`).join(" ");
  const hint = `download a checkpoint (e.g. Qwen/Qwen3-4B-Thinking-2507) and add ${sets} with the folder it is in, or plan a slime recipe: --recipe configs/qwen3-4b-combine.yaml`;
  return refused.map(
    (key, index) =>
      new OpenclawRlError("RECIPE_INVALID", `${BUILTIN_QWEN3} is openclaw-rl's stand-in (Qwen3's tokenizer and chat template, no weights): slime cannot load it`, {
        path: key,
        hint: index === refused.length - 1 ? hint : undefined,
      }),
  );
}
