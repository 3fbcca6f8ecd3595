// A Ray cluster already running on this machine (`ray status` answers, or Ray's head / dashboard port is taken):
// start launches its own Ray head, so it refuses. Ignores whose cluster it is.
import type { LaunchPlan } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { checkPort, recipePorts } from "../recipe-ports.ts";
import { rayControlFor } from "../supervisor/plan-children.ts";
import { failed, passed, type CheckResult } from "./check-result.ts";

const FIX = "openclaw-rl starts its own Ray head: stop the running one with `ray stop` if it is yours (it stops every Ray of your user on this machine), or set cluster.ray_port / cluster.dashboard_port to free ports";

export async function checkRayRunning(recipe: Recipe, plan: LaunchPlan, environment: Record<string, string | undefined>): Promise<CheckResult[]> {
  const ray = rayControlFor(recipe, environment, plan.processes);
  const status = await ray.status(20_000, null).catch(() => ({ running: false, nodes: 0, output: "" }));
  if (status.running) return [failed("ray", "a Ray cluster is already running on this machine (`ray status` answers)", FIX, { code: "RAY_RUNNING", path: "cluster.ray_port" })];
  const results: CheckResult[] = [];
  for (const use of recipePorts(recipe).filter((use) => use.ray)) {
    const check = await checkPort(use.port, use.host);
    if (!check.free) results.push(failed("ray", `port ${use.port} is in use (${check.code}); Ray may already be running`, FIX, { code: "RAY_RUNNING", path: use.key }));
  }
  return results.length > 0 ? results : [passed("ray", "no Ray cluster is running here")];
}
