// The GPU slices the recipe asks for against its cluster (launchers/placement.ts's rules), one result per problem.
// Ignores the GPUs this machine has (gpu-check.ts).
import type { Recipe } from "../../contracts/recipe.ts";
import { placementProblems } from "../placement.ts";
import { failed, passed, type CheckResult } from "./check-result.ts";

export function checkPlacement(recipe: Recipe): CheckResult[] {
  const problems = placementProblems(recipe);
  if (problems.length === 0) {
    const { nodes, gpus_per_node, actor_gpus, rollout_gpus, prm_gpus } = recipe.cluster;
    return [passed("placement", `${actor_gpus}/${rollout_gpus}/${recipe.judge.launch === "external" ? 0 : prm_gpus} GPUs (actor/rollout/prm) fit ${nodes} node(s) × ${gpus_per_node}`)];
  }
  return problems.map((problem) => failed("placement", problem.message, problem.hint ?? `change ${problem.path}`, { code: problem.code, ...(problem.path ? { path: problem.path } : {}) }));
}
