// A `start` already running with this records folder (its pid in <run>/pids.json, still alive): start refuses to run
// a second one beside it, and doctor says so instead of reporting that run's own ports as taken. Never signals it.
import { OpenclawRlError } from "../../contracts/errors.ts";
import { recipePorts } from "../recipe-ports.ts";
import { readResolvedRecipe } from "../resolved-recipe.ts";
import { findLeftovers } from "../supervisor/pid-registry.ts";

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

/** The refusal for a live `start` of this run folder, else null. */
export function runningStartProblem(runDir: string): OpenclawRlError | null {
  const pid = findRunningStart(runDir)?.pid ?? null;
  if (pid === null) return null;
  return new OpenclawRlError("PORT_IN_USE", `another openclaw-rl start (pid ${pid}) is running with this run folder (${runDir})`, {
    path: "records.dir",
    hint: `stop it first (Ctrl-C in its terminal, or kill -TERM ${pid}), or use another records.dir (--set records.dir=<folder>)`,
  });
}
