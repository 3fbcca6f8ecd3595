// evaluation.stop_if_worse: after each evaluation, whether the version's held-out score fell significantly below the
// best version's so far, by the paired difference on the same sessions; if so it pauses training and says why.
// Owns the rule and its sentence; not the pause (orchestrator/bridge/training-pause.ts) nor running evaluations.
import type { HeldOutDrop, Interval, VersionMetrics } from "../../contracts/evaluation.ts";
import { bestVersion } from "./best-version.ts";
import { pairedDifference } from "./evaluation-statistics.ts";

/**
 * Fewest sessions both versions scored for a drop to count: with 5 or fewer pairs even "every one worse" is not
 * significant at 5% by a sign test (p = 2^(1−n) ≥ 0.0625), and a t interval of a few quantised scores can have no
 * width at all (every difference equal).
 */
export const MIN_PAIRS = 6;

/**
 * Significantly below: over the sessions (opener, sample) both versions scored — at least MIN_PAIRS — the 95% t
 * interval of the mean paired difference (candidate − best) lies wholly below 0. Pairing on the same openers and
 * simulator seeds removes the spread between openers (some are harder than others), which two separate intervals
 * would carry twice. Null when not significantly below (or not comparable).
 */
export function significantDrop(candidate: VersionMetrics, best: VersionMetrics): HeldOutDrop | null {
  if (candidate.meanScore === null || best.meanScore === null) return null;
  const paired = pairedDifference(candidate.perSession, best.perSession);
  if (paired === null || paired.interval === null || paired.pairs < MIN_PAIRS || paired.interval.high >= 0) return null;
  return {
    version: candidate.version,
    meanScore: candidate.meanScore,
    scoreCi: candidate.scoreCi,
    bestVersion: best.version,
    bestMeanScore: best.meanScore,
    bestScoreCi: best.scoreCi,
    difference: paired.mean,
    differenceCi: paired.interval,
    pairs: paired.pairs,
  };
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const interval = (ci: Interval | null) => (ci === null ? "" : ` [${percent(ci.low)}, ${percent(ci.high)}]`);
const points = (value: number) => `${value >= 0 ? "+" : "−"}${Math.abs(100 * value).toFixed(1)}`;

/** The sentence the event, the log line and every screen show. */
export function dropMessage(drop: HeldOutDrop): string {
  return (
    `held-out score of version ${drop.version} (${percent(drop.meanScore)}${interval(drop.scoreCi)}) significantly below best version ${drop.bestVersion} ` +
    `(${percent(drop.bestMeanScore)}${interval(drop.bestScoreCi)}): paired difference ${points(drop.difference)} points [${points(drop.differenceCi.low)}, ${points(drop.differenceCi.high)}] over ${drop.pairs} sessions`
  );
}

/** The best version evaluated so far in this run and the rule: `check` each new one against it. */
export class HeldOutGuard {
  private best: VersionMetrics | null = null;

  /** The drop of `metrics` below the best earlier version, or null; then `metrics` may become the best. */
  check(metrics: VersionMetrics): HeldOutDrop | null {
    const drop = this.best === null ? null : significantDrop(metrics, this.best);
    this.best = bestVersion(this.best === null ? [metrics] : [this.best, metrics]);
    return drop;
  }
}
