// The held-out evaluations of a run, one point per evaluated weight version (evaluation-done events), for status and
// the dashboard: a part of the run tally, never mixed with the training reward, with the best version so far
// (best-version.ts, the guard's rule). Bounded; ignores how they were run.
import type { RunEvent } from "../../contracts/events.ts";
import { bestVersion } from "../evaluation/best-version.ts";

type EvaluationDone = Extract<RunEvent, { type: "evaluation-done" }>;

/** An evaluated version as the event says it, with the held-out tasks' rate lifted out and the requests summed. */
export interface EvaluationPoint extends Pick<EvaluationDone, "at" | "version" | "versionAtEnd" | "meanScore" | "scoreCi" | "winRate" | "winRateCi"> {
  outcomeRate: number | null;
  outcomeCi: { low: number; high: number } | null;
  requests: number;
  /** The run whose evaluation it is (null: not recorded); on the base point, another run than this one's means it was reused. */
  run: string | null;
  /** The base weights' own evaluation (the event's baseVersion null), which the other points pair with; always the first point. */
  base: boolean;
}

export interface EvaluationCounts {
  baseVersion: string | null;
  points: EvaluationPoint[];
  /** The version with the highest held-out mean score so far (the earliest of equal ones); null before one scored. */
  best: EvaluationPoint | null;
}

/** Evaluations kept (a run that evaluates every version for days keeps its last ones, and its base). */
const MAX_POINTS = 200;

export class EvaluationTally {
  private points: EvaluationPoint[] = [];
  private baseVersion: string | null = null;
  /** Whether points[0] is a base row (the base weights' evaluation, the event's baseVersion null). */
  private hasBase = false;
  /** Kept apart from the points, so a best evaluated long ago stays named when its point is no longer kept. */
  private best: EvaluationPoint | null = null;

  add(event: EvaluationDone): void {
    const isBase = event.baseVersion === null;
    if (isBase && this.hasBase && this.points[0]!.version === event.version && this.points[0]!.run === (event.run ?? null)) return; // (a reused base handed in again)
    const episodes = event.episodes;
    const point: EvaluationPoint = {
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
      run: event.run ?? null,
      base: isBase && !this.hasBase,
    };
    if (isBase && !this.hasBase) {
      // the base row leads, whenever it arrives (a base evaluated by `eval` after a row of its run reached the tally)
      this.points.unshift(point);
      this.hasBase = true;
      this.baseVersion = event.version;
    } else {
      this.points.push(point);
      this.baseVersion ??= event.baseVersion;
    }
    this.best = bestVersion(this.best === null ? [point] : [this.best, point]);
    if (this.points.length > MAX_POINTS) this.points.splice(this.hasBase ? 1 : 0, 1); // the base stays
  }

  counts(): EvaluationCounts {
    return { baseVersion: this.baseVersion, points: this.points.map((point) => ({ ...point })), best: this.best && { ...this.best } };
  }
}
