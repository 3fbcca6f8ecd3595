// The methods `start` cannot run yet although the recipe and the plan accept them: method hybrid, whose samples need
// the judge pipeline to ask m hint prompts per turn and dispatch them (orchestrator/samples/hybrid-dispatch.ts).
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";

export function methodProblem(recipe: Recipe): OpenclawRlError | null {
  if (recipe.method !== "hybrid") return null;
  return new OpenclawRlError("ENGINE_UNSUPPORTED", "method hybrid: the judge pipeline does not make hybrid samples yet (its dispatch table and sample builder exist; asking the hint votes per turn does not), so start would train nothing", {
    path: "method",
    hint: "`npx openclaw-rl plan --method hybrid --set engine.kind=slime` shows the hybrid's launch; to train now use method: combine",
  });
}
