// A `start` already running with this records folder (its pid in <run>/pids.json, still alive): start refuses to run
// a second one beside it, and the port check says its ports are that run's. Never signals it.
import { recipePorts } from "../recipe-ports.ts";
import { readResolvedRecipe } from "../resolved-recipe.ts";
import { findLeftovers } from "../supervisor/pid-registry.ts";
import { failed, passed, type CheckResult } from "./check-result.ts";

export interface RunningStart {
  pid: number;
  /** The ports its own processes listen on, from its resolved recipe (empty when that cannot be read). */
  ports: number[];
}

/** The live `start` of this run folder, or null. */
export function findRunningStart(runDir: string): RunningStart | null {
  const pid = findLeftovers(runDir).orchestratorPid;
  if (pid === null) return null;
  const recipe = readResolvedRecipe(runDir);
  return { pid, ports: recipe ? recipePorts(recipe).map((use) => use.port) : [] };
}

export function checkRunningStart(runDir: string, running: RunningStart | null): CheckResult {
  if (running === null) return passed("run", `no start is running with records.dir ${runDir}`);
  return failed("run", `another openclaw-rl start (pid ${running.pid}) is running with this run folder (${runDir})`, `stop it first (Ctrl-C in its terminal, or kill -TERM ${running.pid}), or use another records.dir (--set records.dir=<folder>)`, {
    code: "PORT_IN_USE",
    path: "records.dir",
  });
}
