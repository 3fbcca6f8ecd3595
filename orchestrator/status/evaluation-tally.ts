// The held-out evaluations of a run, one point per evaluated weight version (evaluation-done events), for status and
// the dashboard: a part of the run tally, never mixed with the training reward. Bounded; ignores how they were run.
import type { RunEvent } from "../../contracts/events.ts";

type EvaluationDone = Extract<RunEvent, { type: "evaluation-done" }>;

/** An evaluated version as the event says it, with the held-out tasks' rate lifted out and the requests summed. */
export interface EvaluationPoint extends Pick<EvaluationDone, "at" | "version" | "versionAtEnd" | "meanScore" | "scoreCi" | "winRate" | "winRateCi"> {
  outcomeRate: number | null;
  outcomeCi: { low: number; high: number } | null;
  requests: number;
}

/** Evaluations kept (a run that evaluates every version for days keeps its last ones, and its base). */
const MAX_POINTS = 200;

export class EvaluationTally {
  private points: EvaluationPoint[] = [];
  private baseVersion: string | null = null;

  add(event: EvaluationDone): void {
    this.baseVersion ??= event.baseVersion ?? event.version;
    const episodes = event.episodes;
    this.points.push({
      at: event.at,
      version: event.version,
      versionAtEnd: event.versionAtEnd,
      meanScore: event.meanScore,
      scoreCi: event.scoreCi,
      winRate: event.winRate,
      winRateCi: event.winRateCi,
      outcomeRate: episodes?.outcomeRate ?? null,
      outcomeCi: episodes?.outcomeCi ?? null,
      requests: event.requests.policy + event.requests.simulator + event.requests.scorer,
    });
    if (this.points.length > MAX_POINTS) this.points.splice(1, 1); // the first (the base) stays
  }

  counts(): { baseVersion: string | null; points: EvaluationPoint[] } {
    return { baseVersion: this.baseVersion, points: this.points.map((point) => ({ ...point })) };
  }
}
