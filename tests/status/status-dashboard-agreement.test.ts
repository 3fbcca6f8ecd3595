// Status and the dashboard read one fold of the run's events (orchestrator/status/run-tally.ts): fed one event
// sequence, they say the same counts, states and versions after every event, and the way start wires them agrees too.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { RunEventInput } from "../../contracts/events.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { statusSnapshotSchema, type StatusSnapshot } from "../../contracts/status.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { startOrchestrator } from "../../orchestrator/run.ts";
import { DashboardHistory } from "../../orchestrator/status/dashboard/dashboard-history.ts";
import type { DashboardSnapshot } from "../../orchestrator/status/dashboard/dashboard-wire.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";
import { until } from "../support/loopback.ts";

/** What both show, under one set of names. */
function fromStatus(status: StatusSnapshot) {
  return {
    sessions: status.sessions,
    turns: status.turns,
    judged: status.judging.judged,
    withoutSample: status.judging.without_sample,
    ready: status.samples.ready,
    batchSize: status.samples.batch_size,
    samples: {
      made: status.samples.made, fromEarlierRuns: status.samples.from_earlier_runs, ready: status.samples.ready, inTraining: status.samples.in_training,
      trained: status.samples.trained, dropped: status.samples.dropped, delivered: status.samples.delivered,
    },
    held: status.samples.held_back && {
      since: status.samples.held_back.since,
      activeSessions: status.samples.held_back.active_sessions,
      perSession: status.samples.held_back.per_session,
      sessions: status.samples.held_back.sessions.map(({ session, ready }) => ({ unit: session, ready })),
      completesAt: status.samples.held_back.completes_at,
    },
    folder: status.records_folder && { samplesTrained: status.records_folder.samples_trained, droppedStale: status.records_folder.dropped_stale },
    open: status.judging.open,
    rewards: { count: status.rewards.count, positive: status.rewards.positive, zero: status.rewards.zero, negative: status.rewards.negative },
    progress: { done: status.progress.episodes_done, planned: status.progress.episodes_planned, eta: status.progress.eta_ms },
    batchesTrained: status.batches,
    batchesDelivered: status.batches_delivered,
    weightVersion: status.weight_version,
    engines: status.engines.map(({ name, state, detail }) => ({ name, state, detail })).sort((a, b) => a.name.localeCompare(b.name)),
    errors: status.errors.length,
    episodes: { running: status.episodes.running, finished: status.episodes.finished, failed: status.episodes.failed, rate: status.episodes.outcome_rate },
    episodeVersions: Object.entries(status.episodes.by_version).map(([version, entry]) => ({ version, finished: entry.finished, rate: entry.outcome_rate })),
    trainer: { step: status.trainer.step, loss: status.trainer.loss, gradNorm: status.trainer.grad_norm, logprobDiff: status.trainer.logprob_diff, entropy: status.trainer.entropy, stalled: status.trainer.stalled },
    checkpoints: { kept: status.checkpoints.length, latestIteration: status.checkpoints[0]?.iteration ?? null },
    evaluation: status.evaluation.versions.map((point) => [point.version, point.mean_score, point.score_ci, point.win_rate, point.outcome_rate]),
    best: status.evaluation.best && [status.evaluation.best.version, status.evaluation.best.mean_score, status.evaluation.best.score_ci],
    trainingPause: status.training.paused ? [status.training.since, status.training.message, status.training.resume] : null,
    hybrid: status.hybrid && [status.hybrid.cases, status.hybrid.samples, status.hybrid.candidates_per_turn, status.hybrid.k_star, status.hybrid.overlap_at_k_star, status.hybrid.subset_size],
  };
}

function fromDashboard(dashboard: DashboardSnapshot) {
  const { totals, open } = dashboard;
  return {
    sessions: totals.sessions,
    turns: { main: totals.mainTurns, side: totals.sideTurns },
    judged: totals.judged,
    withoutSample: totals.withoutSample,
    ready: open.ready,
    batchSize: open.batchSize,
    samples: totals.samples,
    held: totals.held,
    folder: totals.folder,
    open: totals.openTurns,
    rewards: { count: totals.rewards.count, positive: totals.rewards.positive, zero: totals.rewards.zero, negative: totals.rewards.negative },
    progress: { done: totals.progress.episodes?.done ?? null, planned: totals.progress.episodes?.planned ?? null, eta: totals.progress.etaMs },
    batchesTrained: totals.batches,
    batchesDelivered: totals.batchesDelivered,
    weightVersion: totals.weightVersion,
    engines: dashboard.engines.map(({ name, state, detail }) => ({ name, state, detail })),
    errors: totals.errors,
    episodes: { running: totals.episodes.running, finished: totals.episodes.finished, failed: totals.episodes.failed, rate: totals.episodes.rate },
    episodeVersions: totals.episodes.byVersion,
    trainer: totals.trainer,
    checkpoints: totals.checkpoints,
    evaluation: totals.evaluation.points.map((point) => [point.version, point.meanScore, point.scoreCi, point.winRate, point.outcomeRate]),
    best: totals.evaluation.best && [totals.evaluation.best.version, totals.evaluation.best.meanScore, totals.evaluation.best.scoreCi],
    trainingPause: totals.trainingPause && [totals.trainingPause.since, totals.trainingPause.message, totals.trainingPause.resume],
    hybrid: totals.hybrid && [totals.hybrid.cases, totals.hybrid.samples, totals.hybrid.samples > 0 ? totals.hybrid.candidates / totals.hybrid.samples : null, totals.hybrid.trainer?.kStar ?? null, totals.hybrid.trainer?.overlapAtKStar ?? null, totals.hybrid.trainer?.subsetSize ?? null],
  };
}

const counts = { positive: 1, zero: 0, negative: 1 };
const judged = (sessionId: string, turn: number, kept: boolean): RunEventInput => ({
  type: "turn-judged", sessionId, turn, method: "binary", score: kept ? 1 : -1, hintAccepted: null,
  sample: kept ? { kind: "rl", reward: 1, why: "binary: majority +1" } : null, skipped: kept ? null : "eval -1", skipCategory: kept ? null : "no-signal",
});
const ended = (sessionId: string, turn: number, version: string): RunEventInput => ({
  type: "turn-end", sessionId, turn, turnType: "main", finishReason: "stop", promptTokens: 10, responseTokens: 5, ttftMs: 20, totalMs: 90, weightVersions: [version], continuedAfterAbort: 0,
});

/**
 * A run through its awkward places: samples an earlier run left (ready, and a batch out), a sample stored before its
 * turn's judgement is announced, a trainer that died holding a batch, an ack of a batch never seen.
 */
const sequence: RunEventInput[] = [
  // the records folder's store, as an earlier run left it: one sample ready, a batch of 2 still out, its totals
  { type: "store-opened", ready: 1, outstanding: [{ batchId: "earlier", size: 2 }], acknowledged: 10, droppedStale: 5 },
  { type: "episodes-planned", planned: 2, tasks: 1, samplesPerTask: 2, epochs: 1 },
  { type: "engine-state", name: "policy", state: "starting", detail: "launching" },
  { type: "engine-state", name: "judge", state: "ready", detail: "1 engine" },
  { type: "turn-start", sessionId: "a", turn: 0, turnType: "main", decidedBy: "agent-conversation" },
  ended("a", 0, "3"),
  { type: "turn-start", sessionId: "a", turn: 0, turnType: "side", decidedBy: "utility-model" },
  { type: "turn-start", sessionId: "b:x", turn: 0, turnType: "main", decidedBy: "agent-conversation" },
  ended("b:x", 0, "3"),
  { type: "turn-closed", sessionId: "a", turn: 0, closedBy: "next-request", nextStateRole: "user" },
  { type: "sample-ready", sampleId: "a:0", sessionId: "a", turn: 0, kind: "rl", reward: 1, ready: 2, batchSize: 2 },
  judged("a", 0, true),
  { type: "turn-closed", sessionId: "b:x", turn: 0, closedBy: "next-request", nextStateRole: "tool" },
  judged("b:x", 0, false),
  { type: "engine-state", name: "policy", state: "ready", detail: "2 engines" },
  { type: "sample-ready", sampleId: "c:0", sessionId: "c", turn: 0, kind: "rl", reward: 1, ready: 3, batchSize: 2 }, // (its turn-judged not yet here)
  { type: "sample-dropped", sampleId: "old:0", reason: "stale", detail: "3 versions behind (max 2)", ready: 2 },
  { type: "batch-released", batchId: "earlier", size: 2, ready: 3 },
  { type: "sample-dropped", sampleId: "c:0", reason: "invalid", detail: "bad" },
  { type: "batch-held", ready: 3, size: 2, activeSessions: 2, perSession: 1, sessions: [{ unit: "s1", ready: 2 }], completesAt: 1_800_000_000_000 },
  { type: "batch-delivered", rolloutId: 0, batchId: "b0-first", size: 2, meanReward: 0, evalScore: 0, counts, ready: 1 },
  { type: "weights-update-start", fromVersion: "3" },
  { type: "error", source: "bridge", code: "BRIDGE_CLOSED", message: "the trainer went away" },
  { type: "checkpoint-saved", iteration: 4, folder: "/run/checkpoints/iter_0000004", bytes: 10, savedAt: 1 },
  { type: "error", source: "trainer", code: "TRAINER_STALLED", message: "no progress for 1800s", hint: "training.stall_after_s" },
  { type: "trainer-metrics", step: 3, loss: 0.5, gradNorm: 1.25, logprobDiff: 0.01, lr: 1e-6, metrics: { loss: 0.5, openclaw_rl_entropy: 1.94 }, entropy: { value: 1.94, source: "openclaw_rl" } },
  { type: "checkpoint-saved", iteration: 9, folder: "/run/checkpoints/iter_0000009", bytes: 10, savedAt: 2 },
  { type: "checkpoint-pruned", iteration: 4, folder: "/run/checkpoints/iter_0000004" },
  { type: "evaluation-done", version: "0", versionAtEnd: "0", baseVersion: "0", sessions: 4, scored: 4, meanScore: 0.5, scoreCi: { low: 0.3, high: 0.7 }, winRate: null, winRateCi: null, requests: { policy: 12, simulator: 8, scorer: 12 }, episodes: null },
  { type: "evaluation-done", version: "3", versionAtEnd: "4", baseVersion: "0", sessions: 4, scored: 4, meanScore: 0.75, scoreCi: { low: 0.5, high: 1 }, winRate: 0.625, winRateCi: { low: 0.3, high: 0.9 }, requests: { policy: 12, simulator: 8, scorer: 12 }, episodes: null },
  { type: "evaluation-done", version: "6", versionAtEnd: "6", baseVersion: "0", sessions: 4, scored: 4, meanScore: 0.25, scoreCi: { low: 0.1, high: 0.4 }, winRate: 0.25, winRateCi: { low: 0.1, high: 0.6 }, requests: { policy: 12, simulator: 8, scorer: 12 }, episodes: null },
  {
    type: "training-paused", reason: "held-out-worse", message: "held-out score of version 6 (25.0% …) significantly below best version 3 (75.0% …)", resume: "`npx openclaw-rl resume-training --run run`",
    drop: { version: "6", meanScore: 0.25, scoreCi: { low: 0.1, high: 0.4 }, bestVersion: "3", bestMeanScore: 0.75, bestScoreCi: { low: 0.5, high: 1 }, difference: -0.5, differenceCi: { low: -0.7, high: -0.3 }, pairs: 8 },
    since: 1_000, // (a pause recorded before a restart of start, said again: it began before this event)
  },
  { type: "weights-version-reset", fromVersion: "3", reason: "slime restarted" },
  { type: "sample-ready", sampleId: "d:0", sessionId: "d", turn: 0, kind: "rl", reward: 1, ready: 2, batchSize: 2 },
  { type: "batch-delivered", rolloutId: 0, batchId: "b0-again", size: 2, meanReward: 0, evalScore: 0, counts },
  { type: "batch-acknowledged", rolloutId: 0, batchId: "b0-again" },
  { type: "batch-acknowledged", rolloutId: 9, batchId: "never-delivered-here" },
  { type: "weights-update-start", fromVersion: "0" },
  { type: "training-resumed", pausedAt: 1, by: "POST /training/resume" },
  { type: "weights-update-end", toVersion: "1", durationMs: 700 },
  { type: "turn-start", sessionId: "a", turn: 1, turnType: "main", decidedBy: "agent-conversation" },
  ended("a", 1, "1"),
  { type: "engine-state", name: "judge", state: "degraded", detail: "0 of 1 engines" },
  { type: "episode-start", episodeId: "t:u:0:0", groupId: "t:u:0" },
  { type: "episode-start", episodeId: "t:u:0:1", groupId: "t:u:0" },
  { type: "episode-end", episodeId: "t:u:0:0", groupId: "t:u:0", score: 1, failure: null, steps: 2, weightVersion: "1" },
  { type: "episode-end", episodeId: "t:u:0:1", groupId: "t:u:0", score: null, failure: "grader crashed", steps: 1, weightVersion: "1" },
  // a trainer step that reports the hybrid's selection numbers (the hybrid numbers are null until one)
  { type: "trainer-metrics", step: 4, loss: -0.5, gradNorm: null, logprobDiff: null, lr: null, metrics: { loss: -0.5, sel_k_star_mean: 0.75, sel_overlap_at_k_star: 1.5, opd_subset_size: 2 } },
];

describe("status and the dashboard", () => {
  it("fed one event sequence, say the same counts, states and versions after every event", () => {
    const recipe = recipeSchema.parse({ name: "agree", method: "binary", engine: { kind: "rehearsal" }, training: { batch_size: 2 } });
    const bus = new EventBus();
    const status = new StatusTracker(bus, recipe);
    const dashboard = new DashboardHistory({}, recipe.method, recipe.training.batch_size);
    bus.subscribe((event) => dashboard.apply(event));
    for (const [index, event] of sequence.entries()) {
      bus.emit(event);
      const now = Date.now(); // (one clock for both: the ETA is read from it)
      const shown = fromStatus(statusSnapshotSchema.parse(status.snapshot(now)));
      expect(fromDashboard(dashboard.snapshot(now)), `after event ${index} (${event.type})`).toEqual(shown);
      // the sums hold after every event: judged = made + without a sample; made + from earlier runs = where each sample is
      const { made, fromEarlierRuns, ready, inTraining, trained, dropped } = shown.samples;
      expect([shown.judged, made + fromEarlierRuns], `after event ${index} (${event.type})`).toEqual([made + shown.withoutSample, ready + inTraining + trained + dropped.stale + dropped.invalid]);
      expect(shown.ready, "the next-batch figure is the sum's").toBe(ready);
      if (event.type === "training-paused") expect(fromStatus(status.snapshot(now)).trainingPause?.slice(0, 2)).toEqual([event.since, event.message]);
    }
    expect(fromStatus(status.snapshot())).toMatchObject({
      sessions: 2, turns: { main: 3, side: 1 }, batchesTrained: 2, batchesDelivered: 2, weightVersion: "1", judged: 4, withoutSample: 1,
      // 3 made + 3 an earlier run left = 0 ready + 2 in training (the dead trainer's batch; the released one of the
      // earlier run is not) + 2 trained (the ack of a batch never seen here moves none) + 1 dropped stale + 1 invalid
      samples: { made: 3, fromEarlierRuns: 3, ready: 0, inTraining: 2, trained: 2, dropped: { stale: 1, invalid: 1 }, delivered: 4 },
      open: 1, folder: { samplesTrained: 12, droppedStale: 6 }, progress: { done: 2, planned: 2, eta: 0 },
      // the best of v0 (0.5), v3 (0.75), v6 (0.25); the pause ended by the resume
      best: ["3", 0.75, { low: 0.5, high: 1 }], trainingPause: null,
    });
    status.close();
  });

  it("as start wires them (GET /status and the dashboard's snapshot), agree before any traffic and on the events that follow", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-agree-"));
    const recipe = recipeSchema.parse({
      method: "binary",
      model: { path: "builtin:qwen3", tokenizer_path: "builtin:qwen3" },
      judge: { launch: "external", url: "http://127.0.0.1:9" },
      engine: { kind: "external", policy_url: "http://127.0.0.1:9" },
      training: { batch_size: 6 },
      records: { dir: runDir },
    });
    const orchestrator = await startOrchestrator({
      recipe, runDir, apiKey: undefined, engines: { policy: "http://127.0.0.1:9", judge: "http://127.0.0.1:9" },
      readiness: () => ({ ready: true, reason: "test", retryAfterS: 0 }), ports: { proxy: 0, admin: 0 },
    });
    try {
      const headers = { authorization: `Bearer ${orchestrator.adminToken}` };
      const statusNow = async () => fromStatus(statusSnapshotSchema.parse(await (await fetch(`${orchestrator.urls.admin}/status`, { headers })).json()));
      // read at one moment: the dashboard between two equal status answers (an event between them, e.g. an engine
      // error, means read again)
      const both = () =>
        until("status and the dashboard read at one moment", async () => {
          const before = await statusNow();
          const dashboard = fromDashboard((await (await fetch(`${orchestrator.urls.admin}/dashboard/api/snapshot`, { headers })).json()) as DashboardSnapshot);
          const status = await statusNow();
          return JSON.stringify(before) === JSON.stringify(status) ? { status, dashboard } : null;
        }, 60_000);
      let { status, dashboard } = await both();
      expect(dashboard).toEqual(status);
      expect(dashboard.batchSize).toBe(6);
      for (const event of sequence.filter((event) => event.type.startsWith("weights-") || event.type.startsWith("batch-") || event.type.startsWith("sample-") || event.type === "turn-judged")) {
        orchestrator.bus.emit(event.type === "sample-ready" ? { ...event, batchSize: 6 } : event); // (the store's batch size is the recipe's)
      }
      ({ status, dashboard } = await both());
      const sameOnBoth = ({ judged, withoutSample, batchSize, batchesTrained, batchesDelivered, weightVersion }: typeof status | typeof dashboard) =>
        ({ judged, withoutSample, batchSize, batchesTrained, batchesDelivered, weightVersion });
      expect(sameOnBoth(dashboard)).toEqual(sameOnBoth(status));
      expect(sameOnBoth(status)).toEqual({ judged: 4, withoutSample: 1, batchSize: 6, batchesTrained: 2, batchesDelivered: 2, weightVersion: "1" });
    } finally {
      await orchestrator.stop();
    }
  });
});
