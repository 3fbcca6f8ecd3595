// The dashboard's server-side aggregation: per-batch stats, hints, drops, weight updates, the turn table's
// statuses and cursor paging, delta series indexes, and memory bounds over 10,000 turns.
import { describe, expect, it } from "vitest";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { DashboardHistory } from "../../orchestrator/status/dashboard/dashboard-history.ts";
import { createSyntheticRun, emitTurn } from "./synthetic-run.ts";

function wiredHistory(limits = {}) {
  const bus = new EventBus(100);
  const history = new DashboardHistory(limits, null, 4);
  bus.subscribe((event) => history.apply(event));
  return { bus, history };
}

describe("DashboardHistory", () => {
  it("follows a turn from start to kept sample, with votes and latency", () => {
    const { bus, history } = wiredHistory();
    bus.emit({ type: "turn-start", sessionId: "s:1", turn: 0, turnType: "main", decidedBy: "header:x-session-id" });
    expect(history.findTurn("s:1", 0)?.status).toBe("generating");
    bus.emit({ type: "turn-end", sessionId: "s:1", turn: 0, turnType: "main", finishReason: "stop", promptTokens: 10, responseTokens: 5, ttftMs: 40, totalMs: 300, weightVersions: ["3"], continuedAfterAbort: 0 });
    expect(history.findTurn("s:1", 0)?.status).toBe("awaiting-next-state");
    bus.emit({ type: "turn-closed", sessionId: "s:1", turn: 0, closedBy: "next-request", nextStateRole: "user" });
    bus.emit({ type: "judge-vote", sessionId: "s:1", turn: 0, purpose: "eval", vote: 1, ok: true });
    bus.emit({ type: "judge-vote", sessionId: "s:1", turn: 0, purpose: "eval", vote: null, ok: false, error: "timeout after 60 s" });
    bus.emit({ type: "sample-ready", sampleId: "s:1:0", sessionId: "s:1", turn: 0, kind: "rl", reward: 1, ready: 1, batchSize: 4 });
    bus.emit({ type: "turn-judged", sessionId: "s:1", turn: 0, method: "binary", score: 1, hintAccepted: null, sample: { kind: "rl", reward: 1, why: "binary: majority +1 of 1 valid vote" }, skipped: null });
    const row = history.findTurn("s:1", 0);
    expect(row).toMatchObject({ status: "kept", reward: 1, why: "binary: majority +1 of 1 valid vote", ttftMs: 40, totalMs: 300, closedBy: "next-request", method: "binary" });
    expect(row?.votes).toEqual([{ purpose: "eval", vote: 1, ok: true }, { purpose: "eval", vote: null, ok: false, error: "timeout after 60 s" }]);
    const snapshot = history.snapshot();
    expect(snapshot.totals).toMatchObject({ turns: 1, mainTurns: 1, sessions: 1, judged: 1, withoutSample: 0, samples: expect.objectContaining({ made: 1, ready: 1 }), weightVersion: "3" });
    expect(snapshot.latency.items).toEqual([expect.objectContaining({ ttftMs: 40, totalMs: 300, turnType: "main" })]);
    expect(snapshot.method).toBe("binary");
  });

  it("carries method hybrid's own numbers in the totals, and none for other methods", () => {
    const { bus, history } = wiredHistory();
    bus.emit({ type: "turn-judged", sessionId: "s", turn: 0, method: "binary", score: 1, hintAccepted: null, sample: null, skipped: "eval +1 without a sample" });
    expect(history.snapshot().totals.hybrid).toBeNull();
    const judged = (turn: number, hybrid: { case: "hint-and-evaluation" | "hint-only" | "evaluation-only" | "neither"; candidates: number }) =>
      bus.emit({ type: "turn-judged", sessionId: "h", turn, method: "hybrid", score: null, hintAccepted: null, sample: null, skipped: null, hybrid });
    judged(0, { case: "hint-and-evaluation", candidates: 3 });
    judged(1, { case: "hint-only", candidates: 1 });
    judged(2, { case: "neither", candidates: 0 });
    expect(history.snapshot().totals.hybrid).toEqual({ cases: { "hint-and-evaluation": 1, "hint-only": 1, "evaluation-only": 0, neither: 1 }, samples: 2, candidates: 4, trainer: null });
    bus.emit({ type: "trainer-metrics", step: 1, loss: -0.5, gradNorm: null, logprobDiff: null, lr: null, metrics: { loss: -0.5, sel_k_star_mean: 0.75, sel_overlap_at_k_star: 1.5, opd_subset_size: 2 } });
    expect(history.snapshot().totals.hybrid?.trainer).toEqual({ kStar: 0.75, overlapAtKStar: 1.5, subsetSize: 2 });
  });

  it("marks skipped, side and stale-dropped turns with their reason", () => {
    const { bus, history } = wiredHistory();
    bus.emit({ type: "turn-start", sessionId: "a", turn: 0, turnType: "side", decidedBy: "utility-model" });
    bus.emit({ type: "turn-start", sessionId: "a", turn: 1, turnType: "main", decidedBy: "agent-conversation" });
    bus.emit({ type: "turn-judged", sessionId: "a", turn: 1, method: "opd", score: null, hintAccepted: false, sample: null, skipped: "opd: no hint longer than 10 characters" });
    bus.emit({ type: "turn-start", sessionId: "b:x", turn: 2, turnType: "main", decidedBy: "agent-conversation" });
    bus.emit({ type: "sample-ready", sampleId: "b:x:2", sessionId: "b:x", turn: 2, kind: "opd", reward: 0, ready: 1, batchSize: 4 });
    bus.emit({ type: "turn-judged", sessionId: "b:x", turn: 2, method: "opd", score: null, hintAccepted: true, sample: { kind: "opd", reward: 0, why: "opd: hint kept" }, skipped: null });
    bus.emit({ type: "sample-dropped", sampleId: "b:x:2", reason: "stale", detail: "3 versions behind (max 2)" });
    expect(history.findTurn("a", 0)).toMatchObject({ status: "side", why: "side turn: not trained" });
    expect(history.findTurn("a", 1)).toMatchObject({ status: "skipped", why: "opd: no hint longer than 10 characters", reward: null });
    expect(history.findTurn("b:x", 2)).toMatchObject({ status: "dropped", why: "dropped (stale): 3 versions behind (max 2)" });
    expect(history.snapshot().totals).toMatchObject({ judged: 2, withoutSample: 1, samples: expect.objectContaining({ made: 1, ready: 0, dropped: { stale: 1, invalid: 0 } }), sideTurns: 1, mainTurns: 2 });
  });

  it("folds batches with their reward counts, hint counts and stale drops, and tracks weight updates", () => {
    const { bus, history } = wiredHistory();
    bus.emit({ type: "store-opened", ready: 1, outstanding: [], acknowledged: 0, droppedStale: 0 }); // (old:0, an earlier run's)
    bus.emit({ type: "sample-ready", sampleId: "s:0", sessionId: "s", turn: 0, kind: "combined", reward: 1, ready: 2, batchSize: 2 });
    bus.emit({ type: "turn-judged", sessionId: "s", turn: 0, method: "combine", score: 1, hintAccepted: true, sample: { kind: "combined", reward: 1, why: "w" }, skipped: null });
    bus.emit({ type: "sample-ready", sampleId: "s:1", sessionId: "s", turn: 1, kind: "rl", reward: -1, ready: 3, batchSize: 2 });
    bus.emit({ type: "turn-judged", sessionId: "s", turn: 1, method: "combine", score: -1, hintAccepted: false, sample: { kind: "rl", reward: -1, why: "w" }, skipped: null });
    bus.emit({ type: "sample-dropped", sampleId: "old:0", reason: "stale", detail: "old" });
    expect(history.snapshot().open).toMatchObject({ ready: 2, batchSize: 2, judged: 2, positive: 1, negative: 1, hintsAccepted: 1, hintsRejected: 1, staleDrops: 1 });
    bus.emit({ type: "batch-delivered", rolloutId: 7, batchId: "b7", size: 2, meanReward: 0, evalScore: 0, counts: { positive: 1, zero: 0, negative: 1 } });
    expect(history.snapshot().batches.items).toEqual([]); // delivered, not trained yet
    bus.emit({ type: "batch-acknowledged", rolloutId: 7, batchId: "b7" });
    bus.emit({ type: "weights-update-start", fromVersion: "1" });
    let snapshot = history.snapshot();
    expect(snapshot.batches.items).toEqual([
      expect.objectContaining({ rolloutId: 7, size: 2, meanReward: 0, evalScore: 0, positive: 1, negative: 1, hintsAccepted: 1, hintsRejected: 1, staleDrops: 1 }),
    ]);
    expect(snapshot.open).toMatchObject({ ready: 0, batchSize: 2, judged: 0, hintsAccepted: 0 });
    expect(snapshot.weights).toEqual([expect.objectContaining({ fromVersion: "1", toVersion: null, durationMs: null })]);
    bus.emit({ type: "weights-update-end", toVersion: "2", durationMs: 4200 });
    bus.emit({ type: "engine-state", name: "policy", state: "degraded", detail: "1 of 2 engines" });
    snapshot = history.snapshot();
    expect(snapshot.weights).toEqual([expect.objectContaining({ fromVersion: "1", toVersion: "2", durationMs: 4200 })]);
    expect(snapshot.totals).toMatchObject({ weightVersion: "2", batches: 1, batchesDelivered: 1, samples: { made: 2, fromEarlierRuns: 1, ready: 0, inTraining: 0, trained: 2, dropped: { stale: 1, invalid: 0 }, delivered: 2 } });
    expect(snapshot.engines).toEqual([expect.objectContaining({ name: "policy", state: "degraded", detail: "1 of 2 engines" })]);
  });

  it("follows a weights-version-reset: the header goes back to 0 and the timeline shows the reset, not an update", () => {
    const { bus, history } = wiredHistory();
    bus.emit({ type: "weights-update-start", fromVersion: "7" });
    bus.emit({ type: "weights-update-end", toVersion: "8", durationMs: 1500 });
    bus.emit({ type: "weights-update-start", fromVersion: "8" }); // the trainer died during this update
    expect(history.snapshot().totals.weightVersion).toBe("8");
    history.delta();
    bus.emit({ type: "weights-version-reset", fromVersion: "8", reason: "slime restarted" });
    const snapshot = history.snapshot();
    expect(snapshot.totals.weightVersion).toBe("0");
    expect(snapshot.weights.map(({ fromVersion, toVersion, reset }) => ({ fromVersion, toVersion, reset }))).toEqual([
      { fromVersion: "7", toVersion: "8", reset: undefined },
      { fromVersion: "8", toVersion: "?", reset: undefined },
      { fromVersion: "8", toVersion: "0", reset: "slime restarted" },
    ]);
    const delta = history.delta();
    expect(delta.totals.weightVersion).toBe("0");
    expect(delta.weights.map((update) => update.toVersion)).toEqual(["?", "0"]);
    bus.emit({ type: "weights-update-start", fromVersion: "0" });
    bus.emit({ type: "weights-update-end", toVersion: "1", durationMs: 800 });
    expect(history.snapshot().weights.at(-1)).toMatchObject({ fromVersion: "0", toVersion: "1", durationMs: 800 });
    expect(history.snapshot().totals.weightVersion).toBe("1");
  });

  it("counts and plots trained batches once: a batch re-delivered after its trainer died is one point", () => {
    const { bus, history } = wiredHistory();
    const counts = { positive: 3, zero: 0, negative: 1 };
    bus.emit({ type: "batch-delivered", rolloutId: 0, batchId: "b0-first", size: 4, meanReward: 0.5, evalScore: 0.5, counts });
    // the trainer was stopped, then killed; the restarted one says hello (its versions count from 0 again) and gets
    // the same samples again, in a new batch, for its rollout 0
    bus.emit({ type: "weights-version-reset", fromVersion: "3", reason: "slime restarted" });
    bus.emit({ type: "batch-delivered", rolloutId: 0, batchId: "b0-again", size: 4, meanReward: 0.5, evalScore: 0.5, counts });
    expect(history.snapshot().totals).toMatchObject({ batches: 0, batchesDelivered: 2, samples: expect.objectContaining({ trained: 0, inTraining: 8, delivered: 8 }) });
    bus.emit({ type: "batch-acknowledged", rolloutId: 0, batchId: "b0-again" });
    const snapshot = history.snapshot();
    expect(snapshot.totals).toMatchObject({ batches: 1, batchesDelivered: 2, samples: expect.objectContaining({ trained: 4, inTraining: 4, delivered: 8 }) });
    expect(snapshot.batches.items.map((batch) => batch.batchId)).toEqual(["b0-again"]);
    expect(history.delta().batches.items).toHaveLength(1);
  });

  it("counts a sample once, where the store said it was stored; a turn judged again after feedback counts once, as it ended", () => {
    const { bus, history } = wiredHistory();
    const judged = (turn: number, kept: boolean) =>
      bus.emit({ type: "turn-judged", sessionId: "s", turn, method: "binary", score: kept ? 1 : 0, hintAccepted: null, sample: kept ? { kind: "rl", reward: 1, why: "w" } : null, skipped: kept ? null : "eval 0", skipCategory: kept ? null : "no-signal" });
    const stored = (turn: number) => bus.emit({ type: "sample-ready", sampleId: `s:${turn}`, sessionId: "s", turn, kind: "rl", reward: 1, ready: 0, batchSize: 4 });
    stored(0);
    judged(0, true);
    judged(1, false);
    judged(2, true); // (a sample put again that was stored before: no sample-ready, counted then)
    expect(history.snapshot().totals).toMatchObject({ judged: 2, withoutSample: 1, samples: expect.objectContaining({ made: 1, ready: 1 }) });
    // explicit feedback on turn 1: judged again, now with a sample
    stored(1);
    judged(1, true);
    expect(history.snapshot().totals).toMatchObject({ judged: 2, withoutSample: 0, samples: expect.objectContaining({ made: 2, ready: 2 }) });
    expect(history.snapshot().open).toMatchObject({ ready: 2, batchSize: 4 });
  });

  it("pages turns newest first with a cursor that stays stable while turns arrive", () => {
    const { bus, history } = wiredHistory({ pageSize: 3 });
    for (let turn = 0; turn < 7; turn++) bus.emit({ type: "turn-start", sessionId: "s", turn, turnType: "main", decidedBy: "d" });
    const first = history.turnPage(null, 3);
    expect(first.rows.map((row) => row.turn)).toEqual([6, 5, 4]);
    for (let turn = 7; turn < 10; turn++) bus.emit({ type: "turn-start", sessionId: "s", turn, turnType: "main", decidedBy: "d" });
    const second = history.turnPage(first.next, 3);
    expect(second.rows.map((row) => row.turn)).toEqual([3, 2, 1]);
    const last = history.turnPage(second.next, 3);
    expect(last.rows.map((row) => row.turn)).toEqual([0]);
    expect(last.next).toBeNull();
  });

  it("hands each delta only what is new, with running series indexes", () => {
    const { bus, history } = wiredHistory();
    const run = createSyntheticRun(bus, { method: "binary", batchSize: 2 });
    for (let turn = 0; turn < 8; turn++) emitTurn(run, "s", turn);
    const firstDelta = history.delta();
    expect(firstDelta.latency).toMatchObject({ start: 0 });
    expect(firstDelta.latency.items).toHaveLength(8);
    expect(firstDelta.turnRows.map((row) => row.turn)).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
    expect(firstDelta.engines).toBeNull();
    emitTurn(run, "s", 8);
    const secondDelta = history.delta();
    expect(secondDelta.latency).toMatchObject({ start: 8 });
    expect(secondDelta.latency.items).toHaveLength(1);
    expect(secondDelta.turnRows.map((row) => row.turn)).toEqual([8]);
    expect(history.delta().turnRows).toEqual([]);
  });

  it("stays bounded over 1,000 sessions and 10,000 turns", () => {
    const { bus, history } = wiredHistory();
    const run = createSyntheticRun(bus, { method: "combine", batchSize: 16 });
    for (let index = 0; index < 10_000; index++) emitTurn(run, `session-${index % 1000}`, Math.floor(index / 1000), index / 10_000);
    const snapshot = history.snapshot();
    expect(snapshot.totals.turns).toBe(10_000);
    expect(snapshot.totals.sessions).toBe(1000);
    expect(snapshot.latency.items.length).toBe(history.limits.latency);
    expect(snapshot.latency.start).toBe(10_000 - history.limits.latency);
    expect(snapshot.batches.items.length).toBeLessThanOrEqual(history.limits.batches);
    expect(snapshot.turns.rows).toHaveLength(history.limits.pageSize);
    expect(snapshot.turns.total).toBeLessThanOrEqual(history.limits.turns * 1.2);
    expect(JSON.stringify(snapshot).length).toBeLessThan(600_000);
    // the later batches are better: the synthetic agent learns, and the history shows it
    const means = snapshot.batches.items.map((batch) => batch.meanReward);
    const head = means.slice(0, 50).reduce((sum, value) => sum + value, 0) / 50;
    const tail = means.slice(-50).reduce((sum, value) => sum + value, 0) / 50;
    expect(tail).toBeGreaterThan(head);
  });
});
