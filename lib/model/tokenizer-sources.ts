// Which tokenizer the policy and the judge load (a checkpoint folder, or builtin:qwen3), read from the recipe by one
// rule that the stand-ins' plan, doctor and the orchestrator share. Ignores reading the files (model-files.ts).
import type { Recipe } from "../../contracts/recipe.ts";

export interface TokenizerSource {
  /** The recipe key it comes from (for messages: "model.tokenizer_path", "judge.path", …). */
  key: string;
  path: string;
}

/** model.tokenizer_path, else model.path. */
export function policyTokenizerSource(recipe: Recipe): TokenizerSource {
  return firstSet([
    ["model.tokenizer_path", recipe.model.tokenizer_path],
    ["model.path", recipe.model.path],
  ]);
}

/**
 * judge.tokenizer_path, else judge.path, else the policy's tokenizer: a judge without a path of its own is a frozen
 * copy of the policy (judgePath), so it reads the policy's tokenizer, model.tokenizer_path included.
 */
export function judgeTokenizerSource(recipe: Recipe): TokenizerSource {
  const policy = policyTokenizerSource(recipe);
  return firstSet([
    ["judge.tokenizer_path", recipe.judge.tokenizer_path],
    ["judge.path", recipe.judge.path],
    [policy.key, policy.path],
  ]);
}

function firstSet(candidates: Array<[key: string, path: string | undefined]>): TokenizerSource {
  const [key, path] = candidates.find(([, value]) => value !== undefined) ?? candidates[candidates.length - 1]!;
  return { key, path: path! };
}
