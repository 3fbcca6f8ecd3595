// The JSON the dashboard page receives: a bounded snapshot, then deltas on the live stream. Versioned;
// the page (page/*.js) reads exactly these shapes. Knows nothing of HTTP or of how they are computed.
import type { EvaluationCounts } from "../evaluation-tally.ts";
import type { SampleCounts } from "../sample-tally.ts";
import type { HybridCounts } from "../hybrid-tally.ts";
import type { LearningLatencyCounts } from "../learning-latency.ts";
import type { EngineState, PolicyEntropy } from "../../../contracts/events.ts";
import type { Method } from "../../../contracts/recipe.ts";

// 2: totals carry the samples as one sum (Totals.samples, held) instead of kept / skipped / samplesTrained / staleDrops …
export const DASHBOARD_VERSION = 2 as const;

/** Reward and hint counts of one batch window, and the samples dropped as stale in it. */
export interface BatchCounts {
  positive: number;
  zero: number;
  negative: number;
  /** opd / combine: turns of this batch window whose hint was accepted / rejected. */
  hintsAccepted: number;
  hintsRejected: number;
  /** Samples dropped as stale since the previous batch. */
  staleDrops: number;
}

export interface BatchPoint extends BatchCounts {
  rolloutId: number;
  batchId: string;
  at: number;
  size: number;
  meanReward: number;
  evalScore: number | null;
}

export interface LatencyPoint {
  at: number; // turn end, ms epoch
  ttftMs: number | null;
  totalMs: number;
  turnType: "main" | "side";
}

export interface WeightUpdate {
  id: number;
  fromVersion: string;
  toVersion: string | null; // null while the update runs
  startedAt: number;
  durationMs: number | null;
  /** Set on a version reset (slime restarted and counts from 0 again): why. Not an update, so no duration. */
  reset?: string;
}

export interface EngineStatus {
  name: string;
  state: EngineState;
  detail: string;
  since: number;
}

export interface RunErrorEntry {
  at: number;
  source: string;
  code: string;
  message: string;
}

export interface TurnVote {
  purpose: "eval" | "hint";
  vote: number | null;
  ok: boolean;
  error?: string;
}

export type TurnStatus = "generating" | "awaiting-next-state" | "judging" | "kept" | "skipped" | "side" | "dropped";

export interface TurnRow {
  seq: number; // insertion order; newest turns have the highest seq
  sessionId: string;
  turn: number;
  turnType: "main" | "side";
  startedAt: number;
  decidedBy: string;
  status: TurnStatus;
  finishReason: string | null;
  promptTokens: number | null;
  responseTokens: number | null;
  ttftMs: number | null;
  totalMs: number | null;
  closedBy: string | null;
  nextStateRole: "user" | "tool" | null;
  method: Method | null;
  score: number | null;
  hintAccepted: boolean | null;
  reward: number | null;
  kind: string | null;
  /** Why the turn was kept (the sample's rule) or skipped (the judge's reason), or why it was dropped. */
  why: string | null;
  votes: TurnVote[];
}

/**
 * Where every sample is, under status --json's names (camel-cased): made + fromEarlierRuns = ready + inTraining +
 * trained + dropped.stale + dropped.invalid; delivered counts hand-outs (re-deliveries included), not a part of it.
 */
export type SampleTotals = Omit<SampleCounts, "batchSize" | "held">;

export interface Totals {
  turns: number;
  mainTurns: number;
  sideTurns: number;
  sessions: number;
  /** Main turns whose judging ended: samples.made + withoutSample. */
  judged: number;
  withoutSample: number;
  samples: SampleTotals;
  /** Batches the trainer trained (acknowledged). */
  batches: number;
  /** Every batch handed to the trainer, re-deliveries included (a batch given to a trainer that died comes again). */
  batchesDelivered: number;
  errors: number;
  weightVersion: string | null;
  /** General-agent episodes: running, finished, failed, and the outcome rate overall and per weight version (in version order: the first one and the recent ones the run tally keeps). */
  episodes: { running: number; finished: number; failed: number; rate: number | null; byVersion: Array<{ version: string; finished: number; rate: number | null }> };
  /** Main turns answered and not closed (each waits for its session's next message or idle timeout); closed turns the judge has not judged. */
  openTurns: number;
  waitingForJudge: number;
  /** A batch's worth is ready but held back by the per-session share (training.fair_batch): since when, the sessions with a sample ready and the most one may hold; null once a batch left. */
  held: SampleCounts["held"];
  /** Rewards of the samples made ready in this run: how many above, at and below 0. */
  rewards: { count: number; mean: number | null; positive: number; zero: number; negative: number };
  /** Since the records folder was created (earlier runs included); null without a store. */
  folder: { samplesTrained: number; droppedStale: number } | null;
  /** Where the run stands (run-progress.ts); `eta` in words where the work is finite. */
  progress: { episodes: { done: number; planned: number } | null; weightVersion: string | null; batchesTrained: number; finished: boolean | null; etaMs: number | null; eta: string | null };
  /** The trainer's last logged step (null before one), the train/rollout log-prob difference, the policy's entropy and who computed it, and TRAINER_STALLED. */
  trainer: { step: number | null; loss: number | null; gradNorm: number | null; logprobDiff: number | null; entropy: PolicyEntropy | null; stalled: boolean };
  /** Checkpoints kept in training.save_dir, and the newest one's iteration. */
  checkpoints: { kept: number; latestIteration: number | null };
  /** Held-out evaluations per weight version (the run tally's; status shows the same), never the training reward. */
  evaluation: EvaluationCounts;
  /** Training paused by evaluation.stop_if_worse: since when, why, how to resume (the run tally's; status shows the same); null when training. */
  trainingPause: { since: number; message: string; resume: string } | null;
  /** How soon trained samples reach the served weights (learning-latency.ts; status shows the same). */
  learning: LearningLatencyCounts;
  /** method hybrid: judged turns per dispatch case, samples and their candidates, the trainer's last k*, overlap at k* and OPD subset size (hybrid-tally.ts; status shows the same); null for other methods. */
  hybrid: HybridCounts | null;
}

/** Running stats of the batch being filled (judged since the last delivered batch). */
export interface OpenBatch extends BatchCounts {
  ready: number;
  batchSize: number | null;
  judged: number;
}

/** An appended series: `start` is the running index of items[0], so a client can skip what it has. */
export interface SeriesSlice<T> {
  start: number;
  items: T[];
}

export interface DashboardSnapshot {
  version: typeof DASHBOARD_VERSION;
  now: number;
  /** Whose counts these are: start's run id and when it started (every total is this run's unless it says otherwise). */
  run: { runId: string; startedAt: number };
  method: Method | null;
  /** Why the weight versions tokens are labelled with are approximate for this run (version-labels.ts); null when exact. */
  versionLabelNote: string | null;
  /** proxy.session_idle_timeout_s: when a turn still open (waiting for its session's next message) is closed without one. */
  sessionIdleTimeoutS: number | null;
  /** The held-out evaluation's setting (evaluation.every_versions, 0: off) and what the page says before a version is evaluated (status's words). */
  evaluationSetup: { everyVersions: number; advice: string };
  limits: { batches: number; latency: number; weights: number; errors: number; pageSize: number };
  totals: Totals;
  open: OpenBatch;
  engines: EngineStatus[];
  /** Trained batches (a delivered batch shows up once acknowledged). */
  batches: SeriesSlice<BatchPoint>;
  latency: SeriesSlice<LatencyPoint>;
  errors: SeriesSlice<RunErrorEntry>;
  weights: WeightUpdate[];
  turns: TurnPage;
}

export interface DashboardDelta {
  version: typeof DASHBOARD_VERSION;
  now: number;
  method: Method | null;
  totals: Totals;
  open: OpenBatch;
  engines: EngineStatus[] | null; // null: unchanged
  batches: SeriesSlice<BatchPoint>;
  latency: SeriesSlice<LatencyPoint>;
  errors: SeriesSlice<RunErrorEntry>;
  weights: WeightUpdate[]; // changed or new entries (upsert by id)
  turnRows: TurnRow[]; // changed or new rows (upsert by seq), newest first, bounded
  turnsTotal: number; // rows the table holds
}

export interface TurnPage {
  rows: TurnRow[]; // newest first
  total: number; // rows the table holds
  before: number | null; // the `before` cursor this page answers (null: newest)
  next: number | null; // cursor for the following (older) page; null when there is none
}
