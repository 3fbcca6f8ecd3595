// The paper's per-method measure: sessions until the first reply satisfies the persona in `streak` consecutive
// sessions (3), capped (72), over a sequence of per-session first-reply verdicts; and its mean and spread over seeds.
// Pure arithmetic; who judged the verdicts, and how, is the caller's.
import { meanWithInterval } from "./evaluation-statistics.ts";

export const SESSIONS_UNTIL_STREAK = 3;
export const SESSIONS_UNTIL_CAP = 72;

export interface SessionsUntil {
  /** The 1-based session s where s … s + streak − 1 are all satisfied; the cap when no such run was seen by it. */
  sessions: number;
  /** False when the preference never showed `streak` times in a row within the cap (`sessions` is then the cap). */
  reached: boolean;
}

/** Counts over `verdicts[i]` = whether session i + 1's first reply satisfied the persona; verdicts past the cap are ignored. */
export function sessionsUntilPreference(verdicts: readonly boolean[], options: { streak?: number; cap?: number } = {}): SessionsUntil {
  const streak = options.streak ?? SESSIONS_UNTIL_STREAK;
  const cap = options.cap ?? SESSIONS_UNTIL_CAP;
  if (!Number.isInteger(streak) || streak < 1) throw new RangeError(`streak must be a positive integer, got ${streak}`);
  if (!Number.isInteger(cap) || cap < streak) throw new RangeError(`cap must be an integer of at least the streak (${streak}), got ${cap}`);
  let run = 0;
  for (const [index, satisfied] of verdicts.slice(0, cap).entries()) {
    run = satisfied ? run + 1 : 0;
    if (run === streak) return { sessions: index + 2 - streak, reached: true };
  }
  return { sessions: cap, reached: false };
}

/** Whether more sessions can still change the count: false once the streak is seen or the cap is played. */
export function sessionsUntilSettled(verdicts: readonly boolean[], options: { streak?: number; cap?: number } = {}): boolean {
  return sessionsUntilPreference(verdicts, options).reached || verdicts.length >= (options.cap ?? SESSIONS_UNTIL_CAP);
}

export interface SessionsUntilOverSeeds {
  seeds: number;
  mean: number;
  /** Sample standard deviation over seeds (null for one seed): the paper's ± spread. */
  spread: number | null;
  /** The mean's 95% t interval (null for one seed). */
  interval: { low: number; high: number } | null;
  min: number;
  max: number;
  /** Seeds that hit the cap without the preference showing (their count is the cap, a lower bound). */
  capped: number;
}

export function sessionsUntilOverSeeds(results: readonly SessionsUntil[]): SessionsUntilOverSeeds {
  if (results.length === 0) throw new RangeError("no seeds to aggregate");
  const values = results.map((result) => result.sessions);
  const { mean, interval } = meanWithInterval(values);
  const spread = values.length < 2 ? null : Math.sqrt(values.reduce((sum, value) => sum + (value - mean!) ** 2, 0) / (values.length - 1));
  return { seeds: values.length, mean: mean!, spread, interval, min: Math.min(...values), max: Math.max(...values), capped: results.filter((result) => !result.reached).length };
}

/** `10.3 ± 2.1` (one seed: `10`), with `(2 of 3 capped)` when seeds hit the cap. */
export function formatSessionsUntil(summary: SessionsUntilOverSeeds): string {
  const value = summary.spread === null ? `${summary.mean}` : `${summary.mean.toFixed(1)} ± ${summary.spread.toFixed(1)}`;
  return summary.capped === 0 ? value : `${value} (${summary.capped} of ${summary.seeds} capped)`;
}
