// Where a run stands, from the run tally's counts at one moment: episodes done of planned, the weight version, batches
// trained, and an ETA where the work is finite (an episodes run with a plan). Status and the dashboard both show it.
import type { RunCounts } from "./run-tally.ts";

export interface RunProgress {
  /** Episodes finished of those planned; null in a run without an episode plan. */
  episodes: { done: number; planned: number } | null;
  weightVersion: string | null;
  batchesTrained: number;
  /** Whether the planned work is done (every planned episode finished); null where no end is planned. */
  finished: boolean | null;
  /** Estimated ms until the planned work is done, from the pace so far; null where there is no end or no pace yet. */
  etaMs: number | null;
}

export function progressOf(counts: RunCounts, now: number): RunProgress {
  const { planned, finished, firstStartedAt } = counts.episodes;
  const base = { weightVersion: counts.weights.version, batchesTrained: counts.batches.trained };
  if (planned === null) return { ...base, episodes: null, finished: null, etaMs: null };
  const done = Math.min(finished, planned);
  const elapsed = firstStartedAt === null ? 0 : now - firstStartedAt;
  const etaMs = done >= planned ? 0 : done > 0 && elapsed > 0 ? Math.round(((planned - done) * elapsed) / done) : null;
  return { ...base, episodes: { done, planned }, finished: done >= planned, etaMs };
}

/** An ETA as a person reads it: "about 4 min", "about 1.5 h", "done". */
export function describeEta(etaMs: number | null): string {
  if (etaMs === null) return "ETA unknown yet";
  if (etaMs === 0) return "done";
  const seconds = Math.round(etaMs / 1000);
  if (seconds < 90) return `about ${seconds} s left`;
  if (seconds < 5400) return `about ${Math.round(seconds / 60)} min left`;
  return `about ${(seconds / 3600).toFixed(1)} h left`;
}
