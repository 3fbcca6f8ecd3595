// The recipe paths slime (and its judge engine) load weights from, refused when one names the stand-in
// builtin:qwen3: a tokenizer and chat template without weights, so no machine can load it. Ignores tokenizer paths.
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { BUILTIN_QWEN3 } from "../../lib/model/model-files.ts";

/** One error per weight path (model.path, judge.path, training.ref_load) that is builtin:qwen3 on engine.kind slime. */
export function standInWeightErrors(recipe: Recipe): OpenclawRlError[] {
  if (recipe.engine.kind !== "slime") return [];
  const judgeRuns = recipe.judge.launch !== "external";
  const paths: Array<[string, string | undefined]> = [
    ["model.path", recipe.model.path],
    ["judge.path", judgeRuns ? recipe.judge.path : undefined],
    ["training.ref_load", recipe.training.ref_load],
  ];
  return paths
    .filter(([, value]) => value === BUILTIN_QWEN3)
    .map(
      ([key]) =>
        new OpenclawRlError("RECIPE_INVALID", `${BUILTIN_QWEN3} is openclaw-rl's stand-in (Qwen3's tokenizer and chat template, no weights): slime cannot load it`, {
          path: key,
          hint: `download a checkpoint (e.g. Qwen/Qwen3-4B-Thinking-2507) and add --set ${key}=<its folder>, or plan a slime recipe (--recipe configs/qwen3-4b-combine.yaml)`,
        }),
    );
}
