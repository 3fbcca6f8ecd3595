// The methods `start` cannot run yet although the recipe and the plan accept them: method hybrid, whose samples need
// the judge pipeline to ask m hint prompts per turn and dispatch them (orchestrator/samples/hybrid-dispatch.ts).
import type { Recipe } from "../../contracts/recipe.ts";
import { failed, type CheckResult } from "./check-result.ts";

export function checkMethod(recipe: Recipe): CheckResult[] {
  if (recipe.method !== "hybrid") return [];
  return [
    failed("method", "method hybrid: the judge pipeline does not make hybrid samples yet (its dispatch table and sample builder exist; asking the hint votes per turn does not), so start would train nothing", "`npx openclaw-rl plan --method hybrid --set engine.kind=slime` shows the hybrid's launch; to train now use method: combine", {
      code: "ENGINE_UNSUPPORTED",
      path: "method",
    }),
  ];
}
