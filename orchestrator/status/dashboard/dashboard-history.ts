// Server-side windowed aggregation of RunEvents for the dashboard: per-batch reward and hint stats, latency,
// weight updates, engines, totals and the recent-turns table, all bounded. Knows nothing of HTTP or files.
import type { RunEvent } from "../../../contracts/events.ts";
import { BatchWindow } from "./batch-window.ts";
import { BoundedSeries } from "./bounded-series.ts";
import {
  DASHBOARD_VERSION,
  type DashboardDelta,
  type DashboardSnapshot,
  type EngineStatus,
  type LatencyPoint,
  type RunErrorEntry,
  type Totals,
  type TurnPage,
} from "./dashboard-wire.ts";
import { TurnTable } from "./turn-table.ts";
import { WeightTimeline } from "./weight-timeline.ts";

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

type Method = "binary" | "opd" | "combine";

export class DashboardHistory {
  readonly limits: DashboardLimits;
  private method: Method | null;
  private readonly batches: BatchWindow;
  private readonly latency: BoundedSeries<LatencyPoint>;
  private readonly errors: BoundedSeries<RunErrorEntry>;
  private readonly weights: WeightTimeline;
  private readonly engines = new Map<string, EngineStatus>();
  private readonly sessions = new Set<string>();
  private readonly table: TurnTable;
  private readonly totals: Totals = {
    turns: 0, mainTurns: 0, sideTurns: 0, sessions: 0, judged: 0, kept: 0, skipped: 0, batches: 0,
    samplesTrained: 0, batchesDelivered: 0, samplesDelivered: 0, staleDrops: 0, invalidDrops: 0, errors: 0, weightVersion: null,
  };
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
  ) {
    this.limits = { ...defaultDashboardLimits, ...limits };
    this.method = method;
    this.batches = new BatchWindow(this.limits.batches, batchSize);
    this.weights = new WeightTimeline(this.limits.weights);
    this.latency = new BoundedSeries(this.limits.latency);
    this.errors = new BoundedSeries(this.limits.errors);
    this.table = new TurnTable(this.limits.turns);
  }

  apply(event: RunEvent): void {
    switch (event.type) {
      case "turn-start": {
        const row = this.table.upsert(event.sessionId, event.turn, event.turnType, event.at);
        row.decidedBy = event.decidedBy;
        this.totals.turns += 1;
        if (event.turnType === "main") this.totals.mainTurns += 1;
        else this.totals.sideTurns += 1;
        this.countSession(event.sessionId);
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
        const served = event.weightVersions[event.weightVersions.length - 1];
        if (served !== undefined) this.totals.weightVersion = served;
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
      case "sample-ready":
        return this.batches.sampleReady(event);
      case "sample-dropped":
        return this.applyDropped(event);
      case "batch-delivered":
        this.batches.batchDelivered(event);
        this.totals.batchesDelivered += 1;
        this.totals.samplesDelivered += event.size;
        return;
      case "batch-acknowledged":
        // trained: counted and plotted now (a delivery that is never acknowledged was not trained)
        this.totals.batches += 1;
        this.totals.samplesTrained += this.batches.batchAcknowledged(event) ?? 0;
        return;
      case "weights-update-start":
        return this.weights.start(event);
      case "weights-update-end":
        this.weights.end(event);
        this.totals.weightVersion = event.toVersion;
        return;
      case "weights-version-reset":
        // slime restarted: its engines count from 0 again ("default"); the old version is not served any more
        this.weights.reset(event);
        this.totals.weightVersion = "0";
        this.batches.trainerRestarted();
        return;
      case "engine-state":
        this.engines.set(event.name, { name: event.name, state: event.state, detail: event.detail, since: event.at });
        this.enginesChanged = true;
        return;
      case "error":
        this.errors.push({ at: event.at, source: event.source, code: event.code, message: event.message });
        this.totals.errors += 1;
        return;
    }
  }

  snapshot(now = Date.now()): DashboardSnapshot {
    const { batches, latency, weights, errors, pageSize } = this.limits;
    return {
      version: DASHBOARD_VERSION,
      now,
      method: this.method,
      versionLabelNote: this.versionLabelNote,
      limits: { batches, latency, weights, errors, pageSize },
      totals: { ...this.totals },
      open: this.batches.open,
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
      totals: { ...this.totals },
      open: this.batches.open,
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
    this.totals.judged += 1;
    this.batches.judged(event);
    if (event.sample) {
      Object.assign(row, { status: "kept", reward: event.sample.reward, kind: event.sample.kind, why: event.sample.why });
      this.totals.kept += 1;
    } else {
      Object.assign(row, { status: "skipped", reward: null, kind: null, why: event.skipped ?? "no sample" });
      this.totals.skipped += 1;
    }
  }

  private applyDropped(event: Extract<RunEvent, { type: "sample-dropped" }>): void {
    if (event.reason === "stale") {
      this.totals.staleDrops += 1;
      this.batches.staleDrop();
    } else this.totals.invalidDrops += 1;
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

  private countSession(sessionId: string): void {
    if (this.sessions.has(sessionId) || this.sessions.size >= this.limits.sessions) return;
    this.sessions.add(sessionId);
    this.totals.sessions = this.sessions.size;
  }

  private engineList(): EngineStatus[] {
    return [...this.engines.values()].sort((a, b) => a.name.localeCompare(b.name)).map((engine) => ({ ...engine }));
  }
}
