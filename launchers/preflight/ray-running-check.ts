// A Ray cluster already running on this machine (`ray status` answers, or Ray's head / dashboard port is taken):
// start launches its own Ray head, so it refuses; doctor reports the same. Ignores whose cluster it is.
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { LaunchPlan } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { checkPort, recipePorts } from "../recipe-ports.ts";
import { rayControlFor } from "../supervisor/plan-children.ts";

const HINT = "openclaw-rl starts its own Ray head: stop the running one with `ray stop` if it is yours, or set cluster.ray_port / cluster.dashboard_port to free ports";

export async function rayRunningProblems(recipe: Recipe, plan: LaunchPlan, environment: Record<string, string | undefined>): Promise<OpenclawRlError[]> {
  const ray = rayControlFor(recipe, environment, plan.processes);
  const status = await ray.status(20_000, null).catch(() => ({ running: false, nodes: 0, output: "" }));
  if (status.running) return [new OpenclawRlError("RAY_RUNNING", "a Ray cluster is already running on this machine (`ray status` answers)", { path: "cluster.ray_port", hint: HINT })];
  const problems: OpenclawRlError[] = [];
  for (const use of recipePorts(recipe).filter((use) => use.ray)) {
    const check = await checkPort(use.port, use.host);
    if (!check.free) problems.push(new OpenclawRlError("RAY_RUNNING", `port ${use.port} is in use (${check.code}); Ray may already be running`, { path: use.key, hint: HINT }));
  }
  return problems;
}
