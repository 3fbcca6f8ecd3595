// opd and combine send the policy's token ids to the judge engine to be scored as the teacher: a judge whose
// tokenizer gives tokens other ids would score other text, and the id echo of each answer cannot tell.
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Method } from "../../contracts/recipe.ts";
import type { TokenizerFiles } from "../../lib/model/model-files.ts";
import { vocabularyDifference } from "../../lib/model/vocabulary.ts";
import { METHOD_NEEDS } from "../samples/sample-decision.ts";

/** Throws RECIPE_INVALID when `method` scores a teacher and the judge's tokenizer does not give the policy's ids. */
export function assertTeacherReadsPolicyIds(method: Method, policy: TokenizerFiles, judge: TokenizerFiles): void {
  if (!METHOD_NEEDS[method].teacher) return;
  const difference = vocabularyDifference(policy, judge);
  if (difference === null) return;
  throw new OpenclawRlError("RECIPE_INVALID", `method ${method} scores the policy's token ids with the judge as teacher, but the judge's tokenizer differs from the policy's: ${difference}`, {
    path: "judge.tokenizer_path",
    hint: "use a judge of the policy's tokenizer family (e.g. a larger Qwen3 for a Qwen3 policy), or method binary",
  });
}
