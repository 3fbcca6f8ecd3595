// Children an earlier run left alive (their pids in <run>/pids.json, its orchestrator gone): worth a warning, not a
// refusal; nothing when there are none. Children of a run still alive are that run's (running-start-check.ts).
import { findLeftovers } from "../supervisor/pid-registry.ts";
import { warned, type CheckResult } from "./check-result.ts";

export function checkLeftovers(runDir: string): CheckResult[] {
  const leftovers = findLeftovers(runDir);
  if (leftovers.orchestratorPid !== null) return [];
  return leftovers.children.map((child) =>
    warned("leftovers", `pid ${child.pid} (${child.name}, started by an earlier openclaw-rl run) is still alive: ${child.commandLine}`, `if it is not wanted, stop it with kill -TERM -${child.pid}`),
  );
}
