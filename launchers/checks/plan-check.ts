// start's strict launch plan: it builds (doctor builds it as start would; start builds its own and throws), and a
// rehearsal engine has processes to run. Ignores what the processes do.
import type { ErrorCode } from "../../contracts/errors.ts";
import type { LaunchPlan, PlanContext } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { buildLaunchPlan } from "../launch-plan.ts";
import { failed, passed, type CheckResult } from "./check-result.ts";

export interface PlannedStart {
  /** null when the plan does not build. */
  plan: LaunchPlan | null;
  results: CheckResult[];
}

export function checkPlan(plan: LaunchPlan): CheckResult {
  if (plan.engine === "rehearsal" && plan.processes.length === 0) {
    return failed("plan", plan.notes.join("; ") || "the rehearsal engine has no processes", "check engine.kind and engine.rehearsal", { code: "ENGINE_UNSUPPORTED", path: "engine.kind" });
  }
  return passed("plan", `start's launch plan builds: ${plan.processes.length} process(es)`);
}

/** The plan as start builds it, with a stand-in run id and bridge; a recipe it refuses is one failed result. */
export async function planAsStartWould(recipe: Recipe, input: { runDir: string; packageRoot: string; environment: Record<string, string | undefined> }): Promise<PlannedStart> {
  const context: PlanContext = { packageRoot: input.packageRoot, runDir: input.runDir, environment: input.environment, runId: "doctor", bridgeUrl: "http://127.0.0.1:0", bridgeToken: "doctor" };
  try {
    const plan = await buildLaunchPlan(recipe, context, { strict: true });
    return { plan, results: [checkPlan(plan)] };
  } catch (error) {
    const problem = error as Error & { path?: string; hint?: string; code?: ErrorCode };
    // (the model-args file is the slime checks' own "model-args" result: said once)
    if (problem.path === "engine.slime.model_args" && recipe.engine.kind === "slime") return { plan: null, results: [passed("plan", "not checked: start's launch plan needs the model-args file (see model-args)")] };
    const fix = problem.hint ?? "see `npx openclaw-rl plan` for the launch plan";
    return { plan: null, results: [failed("plan", problem.message, fix, { ...(problem.code ? { code: problem.code } : {}), ...(problem.path ? { path: problem.path } : {}) })] };
  }
}
