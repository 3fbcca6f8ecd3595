// Signals to a child's process group (children are spawned detached, each leading its own group) and
// liveness checks by pid that treat zombies as gone. Never looks processes up by name.
import { readFileSync } from "node:fs";

/** Sends a signal to the whole group led by `pid`; false when no process of that group is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const state = processState(pid);
  return state !== "Z" && state !== "X";
}

/** True while any process of the group led by `pid` is still there. */
export function isGroupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
  } catch {
    return false;
  }
  return true;
}

/** /proc/<pid>/stat state letter (R, S, Z, ...), or null off Linux. */
export function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2) || null;
  } catch {
    return null;
  }
}

/** The command line of a live pid (to tell our old child from an unrelated process that reused its pid). */
export function processCommandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
  } catch {
    return null;
  }
}

export async function waitUntil(check: () => boolean, timeoutMs: number, intervalMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return check();
}

/**
 * SIGTERM to the group's leader alone, for a leader that stops the rest of its group in order (`ray start --block`
 * stops its raylet, GCS, dashboard and workers); then waits up to timeoutMs for the group to empty. True when it did.
 */
export async function terminateThroughLeader(pid: number, timeoutMs: number): Promise<boolean> {
  if (!isGroupAlive(pid)) return true;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return false; // the leader is gone: no one to stop the rest, which the group's signals that follow reach
  }
  return waitUntil(() => !isGroupAlive(pid), timeoutMs);
}

/** SIGTERM the group, wait up to graceMs, then SIGKILL what is left. Returns the signal that ended it. */
export async function terminateGroup(pid: number, graceMs: number): Promise<"SIGTERM" | "SIGKILL" | null> {
  if (!isGroupAlive(pid)) return null;
  signalGroup(pid, "SIGTERM");
  if (await waitUntil(() => !isGroupAlive(pid), graceMs)) return "SIGTERM";
  signalGroup(pid, "SIGKILL");
  await waitUntil(() => !isGroupAlive(pid), 2000);
  return "SIGKILL";
}
