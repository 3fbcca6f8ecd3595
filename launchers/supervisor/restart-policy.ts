// When a crashed child is started again: never, or with exponential backoff up to a number of attempts.
// A child that stayed up long enough counts as healthy again (its attempt counter resets).

export type RestartPolicy =
  | { kind: "never" }
  | { kind: "backoff"; initialMs: number; maxMs: number; factor: number; maxRestarts: number; stableAfterMs: number };

export const NEVER_RESTART: RestartPolicy = { kind: "never" };

export function backoffPolicy(overrides: Partial<Extract<RestartPolicy, { kind: "backoff" }>> = {}): RestartPolicy {
  return { kind: "backoff", initialMs: 1000, maxMs: 30_000, factor: 2, maxRestarts: 10, stableAfterMs: 60_000, ...overrides };
}

/** Delay before restart number `attempt` (1-based), or null when the policy gives up. */
export function restartDelay(policy: RestartPolicy, attempt: number): number | null {
  if (policy.kind === "never" || attempt > policy.maxRestarts) return null;
  return Math.min(policy.maxMs, policy.initialMs * policy.factor ** (attempt - 1));
}
