// Doctor: the ports start would refuse (preflight/port-problems.ts: taken, not allowed, one port for two roles), one
// result per port; a port held by the running start of this records folder is said to be that run's, not a stranger's.
import type { Recipe } from "../../contracts/recipe.ts";
import { portProblems } from "../preflight/port-problems.ts";
import type { RunningStart } from "../preflight/running-start.ts";
import { recipePorts } from "../recipe-ports.ts";
import { failed, passed, skipped, type CheckResult } from "./doctor-check.ts";

export async function checkPorts(recipe: Recipe, running: RunningStart | null = null): Promise<CheckResult[]> {
  const problems = await portProblems(recipe);
  return recipePorts(recipe)
    .filter((use) => !use.ray) // (Ray's own ports: ray-running-check.ts, reported under "ray")
    .map((use) => {
      const problem = problems.find((candidate) => candidate.path === use.key);
      if (!problem) return passed("port", `${use.port} (${use.key}) is free`);
      if (running?.ports.includes(use.port) && /in use/.test(problem.message)) {
        return skipped("port", `${use.port} (${use.key}) is held by the running start (pid ${running.pid}) of this records folder`);
      }
      return failed("port", `${use.key}: ${problem.message}`, problem.hint ?? `change ${use.key}`);
    });
}
