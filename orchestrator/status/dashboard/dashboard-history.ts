// Server-side windowed aggregation of RunEvents for the dashboard: per-batch reward and hint stats, latency,
// weight updates, errors and the recent-turns table, all bounded. Totals, engines, the weight version, the samples
// ready and the progress come from the run tally (run-tally.ts): start hands status and the dashboard one instance.
// Knows nothing of HTTP or files.
import type { RunEvent } from "../../../contracts/events.ts";
import { evaluationAdvice } from "../../evaluation/evaluation-advice.ts";
import { describeEta, progressOf } from "../run-progress.ts";
import { RunTally } from "../run-tally.ts";
import { BatchWindow } from "./batch-window.ts";
import { BoundedSeries } from "./bounded-series.ts";
import {
  DASHBOARD_VERSION,
  type DashboardDelta,
  type DashboardSnapshot,
  type EngineStatus,
  type LatencyPoint,
  type OpenBatch,
  type RunErrorEntry,
  type Totals,
  type TurnPage,
} from "./dashboard-wire.ts";
import { TurnTable } from "./turn-table.ts";
import { WeightTimeline } from "./weight-timeline.ts";
import type { Method } from "../../../contracts/recipe.ts";

export interface DashboardLimits {
  batches: number;
  latency: number;
  weights: number;
  errors: number;
  turns: number;
  pageSize: number;
  /** Distinct session ids counted exactly; beyond this the count stops growing (and says so nowhere else). */
  sessions: number;
}

export const defaultDashboardLimits: DashboardLimits = {
  batches: 500,
  latency: 1500,
  weights: 200,
  errors: 50,
  turns: 5000,
  pageSize: 50,
  sessions: 100_000,
};


export class DashboardHistory {
  readonly limits: DashboardLimits;
  private method: Method | null;
  private readonly batches: BatchWindow;
  private readonly latency: BoundedSeries<LatencyPoint>;
  private readonly errors: BoundedSeries<RunErrorEntry>;
  private readonly weights: WeightTimeline;
  private readonly table: TurnTable;
  private readonly tally: RunTally;
  /** Whether this history feeds the tally (its own) or the tally's owner does (a shared one). */
  private readonly feedsTally: boolean;
  // delta bookkeeping: what the last delta covered
  private sentBatches = 0;
  private sentLatency = 0;
  private sentErrors = 0;
  private enginesChanged = false;

  constructor(
    limits: Partial<DashboardLimits> = {},
    method: Method | null = null,
    batchSize: number | null = null,
    private readonly versionLabelNote: string | null = null,
    /** The run's one fold, fed by its owner (start's, shared with status); without it, one of its own fed here. */
    tally?: RunTally,
    /** proxy.session_idle_timeout_s: an open turn is closed (with no next state) once its session idled this long. */
    private readonly sessionIdleTimeoutS: number | null = null,
    /** evaluation.every_versions (0: off) and the run folder, for the words shown before a held-out evaluation finished. */
    private readonly evaluation: { everyVersions: number; runDir: string | null } = { everyVersions: 0, runDir: null },
  ) {
    this.limits = { ...defaultDashboardLimits, ...limits };
    this.method = method;
    this.feedsTally = tally === undefined;
    this.tally = tally ?? new RunTally(batchSize, { sessions: this.limits.sessions });
    this.batches = new BatchWindow(this.limits.batches);
    this.weights = new WeightTimeline(this.limits.weights);
    this.latency = new BoundedSeries(this.limits.latency);
    this.errors = new BoundedSeries(this.limits.errors);
    this.table = new TurnTable(this.limits.turns);
  }

  apply(event: RunEvent): void {
    if (this.feedsTally) this.tally.apply(event);
    switch (event.type) {
      case "turn-start": {
        const row = this.table.upsert(event.sessionId, event.turn, event.turnType, event.at);
        row.decidedBy = event.decidedBy;
        return;
      }
      case "turn-end": {
        const row = this.table.upsert(event.sessionId, event.turn, event.turnType, event.at - event.totalMs);
        Object.assign(row, {
          finishReason: event.finishReason, promptTokens: event.promptTokens, responseTokens: event.responseTokens,
          ttftMs: event.ttftMs, totalMs: event.totalMs,
        });
        if (row.status === "generating") row.status = "awaiting-next-state";
        this.latency.push({ at: event.at, ttftMs: event.ttftMs, totalMs: event.totalMs, turnType: event.turnType });
        return;
      }
      case "turn-closed": {
        const row = this.table.upsert(event.sessionId, event.turn, "main", event.at);
        row.closedBy = event.closedBy;
        row.nextStateRole = event.nextStateRole;
        if (row.status === "generating" || row.status === "awaiting-next-state") row.status = "judging";
        return;
      }
      case "judge-vote": {
        const row = this.table.upsert(event.sessionId, event.turn, "main", event.at);
        const vote = { purpose: event.purpose, vote: event.vote, ok: event.ok, ...(event.error === undefined ? {} : { error: event.error }) };
        this.table.addVote(row, vote);
        return;
      }
      case "turn-judged":
        return this.applyJudged(event);
      case "sample-dropped":
        return this.applyDropped(event);
      case "batch-delivered":
        return this.batches.batchDelivered(event);
      case "batch-acknowledged":
        // trained: plotted now (a delivery that is never acknowledged was not trained)
        return this.batches.batchAcknowledged(event);
      case "weights-update-start":
        return this.weights.start(event);
      case "weights-update-end":
        return this.weights.end(event);
      case "weights-version-reset":
        // slime restarted: the timeline shows the reset, and the batches its trainer held are not plotted
        this.weights.reset(event);
        this.batches.trainerRestarted();
        return;
      case "engine-state":
        this.enginesChanged = true;
        return;
      case "error":
        this.errors.push({ at: event.at, source: event.source, code: event.code, message: event.message });
        return;
    }
  }

  snapshot(now = Date.now()): DashboardSnapshot {
    const { batches, latency, weights, errors, pageSize } = this.limits;
    return {
      version: DASHBOARD_VERSION,
      now,
      run: this.tally.counts().run,
      method: this.method,
      versionLabelNote: this.versionLabelNote,
      sessionIdleTimeoutS: this.sessionIdleTimeoutS,
      evaluationSetup: { everyVersions: this.evaluation.everyVersions, advice: evaluationAdvice(this.evaluation.everyVersions, this.evaluation.runDir) },
      limits: { batches, latency, weights, errors, pageSize },
      totals: this.totals(now),
      open: this.openBatch(),
      engines: this.engineList(),
      batches: this.batches.trained.slice(),
      latency: this.latency.slice(),
      errors: this.errors.slice(),
      weights: this.weights.list(),
      turns: this.turnPage(null, pageSize),
    };
  }

  /** What changed since the previous delta (shared by every live client; series carry their running index). */
  delta(now = Date.now()): DashboardDelta {
    const delta: DashboardDelta = {
      version: DASHBOARD_VERSION,
      now,
      method: this.method,
      totals: this.totals(now),
      open: this.openBatch(),
      engines: this.enginesChanged ? this.engineList() : null,
      batches: this.batches.trained.since(this.sentBatches),
      latency: this.latency.since(this.sentLatency),
      errors: this.errors.since(this.sentErrors),
      weights: this.weights.drainChanged(),
      turnRows: this.table.drainChanged(this.limits.pageSize * 2).map((row) => structuredClone(row)),
      turnsTotal: this.table.size,
    };
    this.sentBatches = this.batches.trained.total;
    this.sentLatency = this.latency.total;
    this.sentErrors = this.errors.total;
    this.enginesChanged = false;
    return delta;
  }

  turnPage(before: number | null, limit: number): TurnPage {
    const page = this.table.page(before, Math.min(Math.max(1, limit), 500));
    return { ...page, rows: page.rows.map((row) => structuredClone(row)) };
  }

  findTurn(sessionId: string, turn: number) {
    const row = this.table.find(sessionId, turn, "main") ?? this.table.find(sessionId, turn, "side");
    return row ? structuredClone(row) : null;
  }

  private applyJudged(event: Extract<RunEvent, { type: "turn-judged" }>): void {
    const row = this.table.upsert(event.sessionId, event.turn, "main", event.at);
    this.method = event.method;
    Object.assign(row, { method: event.method, score: event.score, hintAccepted: event.hintAccepted });
    this.batches.judged(event);
    if (event.sample) Object.assign(row, { status: "kept", reward: event.sample.reward, kind: event.sample.kind, why: event.sample.why });
    else Object.assign(row, { status: "skipped", reward: null, kind: null, why: event.skipped ?? "no sample" });
  }

  private applyDropped(event: Extract<RunEvent, { type: "sample-dropped" }>): void {
    if (event.reason === "stale") this.batches.staleDrop();
    // sample ids are `${sessionId}:${turn}`; session ids may hold ':' themselves
    const split = event.sampleId.lastIndexOf(":");
    const turn = Number(event.sampleId.slice(split + 1));
    const row = split > 0 && Number.isInteger(turn) ? this.table.find(event.sampleId.slice(0, split), turn) : undefined;
    if (row) {
      const updated = this.table.upsert(row.sessionId, row.turn, "main", event.at);
      updated.status = "dropped";
      updated.why = `dropped (${event.reason}): ${event.detail}`;
    }
  }

  /** The run tally's counts under the dashboard's names. */
  private totals(now: number): Totals {
    const counts = this.tally.counts();
    const { sessions, turns, judging, samples, batches, errors, weights, episodes, trainer, checkpoints, rewards, folder, evaluation, trainingPause } = counts;
    const progress = progressOf(counts, now);
    return {
      turns: turns.main + turns.side, mainTurns: turns.main, sideTurns: turns.side, sessions,
      judged: judging.judged, withoutSample: judging.withoutSample,
      openTurns: judging.open, waitingForJudge: judging.waiting, held: samples.held,
      samples: { made: samples.made, fromEarlierRuns: samples.fromEarlierRuns, ready: samples.ready, inTraining: samples.inTraining, trained: samples.trained, dropped: { ...samples.dropped }, delivered: samples.delivered },
      rewards: { count: rewards.count, mean: rewards.mean, positive: rewards.positive, zero: rewards.zero, negative: rewards.negative },
      folder, progress: { ...progress, eta: progress.episodes ? describeEta(progress.etaMs) : null },
      batches: batches.trained, batchesDelivered: batches.delivered, errors: errors.count, weightVersion: weights.version,
      episodes: {
        running: episodes.running, finished: episodes.finished, failed: episodes.failed, rate: episodes.rate,
        byVersion: Object.entries(episodes.versions).map(([version, entry]) => ({ version, finished: entry.finished, rate: entry.rate })),
      },
      trainer: { step: trainer.step, loss: trainer.loss, gradNorm: trainer.gradNorm, logprobDiff: trainer.logprobDiff, entropy: trainer.entropy, stalled: trainer.stalledSince !== null },
      checkpoints: { kept: checkpoints.length, latestIteration: checkpoints[0]?.iteration ?? null },
      evaluation,
      trainingPause,
      learning: counts.learningLatency,
      hybrid: counts.hybrid,
    };
  }

  /** The batch being filled: the samples ready and the batch size (the tally's), with the window's stats. */
  private openBatch(): OpenBatch {
    const { samples } = this.tally.counts();
    return { ready: samples.ready, batchSize: samples.batchSize, ...this.batches.open };
  }

  private engineList(): EngineStatus[] {
    return this.tally.counts().engines.sort((a, b) => a.name.localeCompare(b.name));
  }
}
