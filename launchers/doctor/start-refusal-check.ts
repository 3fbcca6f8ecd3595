// Doctor: the refusals of `start` that no other doctor check covers, from the same rules start's preflight asks (one
// home each): a method start cannot run yet, the proxy's bind rule, a running start of this records folder, a running
// Ray cluster, and the strict launch plan (e.g. slime's model arguments). Ignores the checks doctor runs itself (ports,
// records, family, installation).
import path from "node:path";
import type { PlanContext } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { bindProblem, isLoopback } from "../../lib/bind-rule.ts";
import { buildLaunchPlan } from "../launch-plan.ts";
import { methodProblem } from "../preflight/method-problems.ts";
import { rayRunningProblems } from "../preflight/ray-running-check.ts";
import { runningStartProblem, type RunningStart } from "../preflight/running-start.ts";
import { failed, passed, skipped, type CheckResult } from "./doctor-check.ts";

export interface StartRefusalInput {
  runDir: string;
  running: RunningStart | null;
  packageRoot: string;
  environment: Record<string, string | undefined>;
}

export async function checkStartRefusals(recipe: Recipe, input: StartRefusalInput): Promise<CheckResult[]> {
  const results: CheckResult[] = [checkBind(recipe, input.environment)];
  const method = methodProblem(recipe);
  if (method) results.push(failed("method", method.message, method.hint ?? "use another method"));
  const running = runningStartProblem(input.runDir);
  results.push(running ? failed("run", running.message, running.hint ?? "stop it first") : passed("run", `no start is running with records.dir ${input.runDir}`));
  const context: PlanContext = { packageRoot: input.packageRoot, runDir: input.runDir, environment: input.environment, runId: "doctor", bridgeUrl: "http://127.0.0.1:0", bridgeToken: "doctor" };
  try {
    const plan = await buildLaunchPlan(recipe, context, { strict: true });
    if (plan.engine === "rehearsal" && plan.processes.length === 0) results.push(failed("plan", plan.notes.join("; ") || "the rehearsal engine has no processes", "check engine.kind and engine.rehearsal"));
    else results.push(passed("plan", `start's launch plan builds: ${plan.processes.length} process(es)`));
    if (plan.engine === "slime") {
      const ray = await rayRunningProblems(recipe, plan, input.environment);
      results.push(...(ray.length > 0 ? ray.map((problem) => failed("ray", problem.message, problem.hint ?? "stop the running Ray")) : [passed("ray", "no Ray cluster is running here")]));
    }
  } catch (error) {
    const problem = error as Error & { path?: string; hint?: string };
    // (the model-args file is the slime checks' own "model-args" result: said once)
    if (problem.path === "engine.slime.model_args" && recipe.engine.kind === "slime") return [...results, skipped("plan", "start's launch plan needs the model-args file: see model-args")];
    results.push(failed("plan", `${problem.path ? `${problem.path}: ` : ""}${problem.message}`, problem.hint ?? "see `npx openclaw-rl plan` for the launch plan"));
  }
  return results;
}

function checkBind(recipe: Recipe, environment: Record<string, string | undefined>): CheckResult {
  const { host, api_key_env: keyEnv } = recipe.proxy;
  const problem = bindProblem(host, environment[keyEnv] || undefined, keyEnv);
  if (problem) return failed("proxy", `proxy.host ${host}: ${problem.message}`, problem.hint ?? `set ${keyEnv}`);
  return passed("proxy", isLoopback(host) ? `proxy.host ${host} is loopback (no key needed)` : `proxy.host ${host} with $${keyEnv} set`);
}
