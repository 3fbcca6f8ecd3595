// `status`'s text in words a person reads (good / neutral / bad, open turns, where the run stands and its ETA), and a
// piped `status --watch`: the block once, then only the lines that changed.
import { describe, expect, it } from "vitest";
import { evaluationLines } from "../../cli/commands/status-evaluation.ts";
import { formatStatus } from "../../cli/commands/status-format.ts";
import { PipedStatusPrinter } from "../../cli/commands/status-watch.ts";
import type { RunEventInput } from "../../contracts/events.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { statusSnapshotSchema } from "../../contracts/status.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";

const recipe = recipeSchema.parse({ name: "words", method: "binary", engine: { kind: "rehearsal" }, training: { batch_size: 4 } });

function tracked() {
  const bus = new EventBus();
  const tracker = new StatusTracker(bus, recipe);
  return { bus, status: (now?: number) => statusSnapshotSchema.parse(tracker.snapshot(now)) };
}

const sample = (turn: number, reward: number): RunEventInput => ({ type: "sample-ready", sampleId: `s:${turn}`, sessionId: "s", turn, kind: "rl", reward, ready: turn + 1, batchSize: 4 });

describe("status text", () => {
  it("says rewards, open turns and the trainer in words", () => {
    const { bus, status } = tracked();
    for (const [turn, reward] of [1, 1, 0, -1].entries()) bus.emit(sample(turn, reward));
    bus.emit({ type: "turn-start", sessionId: "s", turn: 4, turnType: "main", decidedBy: "agent-conversation" });
    bus.emit({ type: "turn-end", sessionId: "s", turn: 4, turnType: "main", finishReason: "stop", promptTokens: 1, responseTokens: 1, ttftMs: 1, totalMs: 2, weightVersions: ["default"], continuedAfterAbort: 0 });
    bus.emit({ type: "batch-delivered", rolloutId: 0, batchId: "b0", size: 4, meanReward: 0.25, evalScore: null, counts: { positive: 2, zero: 1, negative: 1 }, ready: 0 });
    bus.emit({ type: "batch-acknowledged", rolloutId: 0, batchId: "b0" });
    const text = formatStatus(status(), 120);
    expect(text).toMatch(/^openclaw-rl words · run \d{8}-\d{6} · binary/);
    expect(text).toContain("rewards     4 samples · mean 0.250 · 2 good (above 0) · 1 neutral (0) · 1 bad (below 0)");
    expect(text).toContain("1 open: answered, waiting for the session's next message (closed unjudged once the session idles)");
    expect(text).toContain("next batch  [");
    expect(text).toContain("0 of 4 samples ready");
    expect(text).toContain("trainer     1 batches trained; no per-step metrics reported");
    expect(text).toContain("progress    weight version 0 · 1 batches trained · no end planned");
  });

  it("says how soon it learns: each stage's median / p90 and the last served update", () => {
    const { bus, status } = tracked();
    expect(formatStatus(status(), 200, "absolute")).toContain("learning    no trained sample served yet · no weight update served yet");
    const now = Date.now();
    const stages = [0, 1].map((index) => ({ answeredAt: now - 90_000 - index * 1000, closedAt: now - 60_000, judgedAt: now - 58_000 }));
    // the samples are made before they are handed out (the sample counts add up)
    for (const turn of [0, 1]) bus.emit(sample(turn, 1));
    bus.emit({ type: "batch-delivered", rolloutId: 0, batchId: "b0", size: 2, meanReward: 1, evalScore: null, counts: { positive: 2, zero: 0, negative: 0 }, ready: 0, stages });
    bus.emit({ type: "batch-acknowledged", rolloutId: 0, batchId: "b0" });
    expect(formatStatus(status(), 200, "absolute")).toContain("learning    2 trained, waiting for the engines' next update");
    bus.emit({ type: "weights-update-end", toVersion: "1", durationMs: 100 });
    const text = formatStatus(status(), 200, "absolute");
    expect(text).toContain("learning    median/p90 over the last 2 trained samples, each wait from the one before: closed 30.0s/31.0s · judged 2.0s/2.0s · to trainer ");
    expect(text).toMatch(/ {12}answer→served 1\.5m\/1\.5m · last update served at \d\d:\d\d:\d\d/);
  });

  it("says a fresh start's v1 is the base weights' initial sync, and update durations as upper bounds, rounded up", () => {
    const { bus, status } = tracked();
    bus.emit({ type: "weights-version-seen", version: "0" });
    bus.emit({ type: "weights-update-start", fromVersion: "0" });
    bus.emit({ type: "weights-update-end", toVersion: "1", durationMs: 180 });
    expect(formatStatus(status(), 200)).toMatch(/weights {5}version 1 · last update \d+s ago \(v1: the trainer's initial sync of the base weights \(the stand-in's initial policy: rehearsal keeps no checkpoint\), no batch trained in it; took ≤0\.2s \(between polls\)\)/);
    bus.emit({ type: "weights-update-start", fromVersion: "1" });
    bus.emit({ type: "weights-update-end", toVersion: "2", durationMs: 20 });
    expect(formatStatus(status(), 200)).toMatch(/weights {5}version 2 · last update \d+s ago \(the update took ≤0\.1s \(between polls\)\)/);
    bus.emit({ type: "weights-update-start", fromVersion: "2" });
    bus.emit({ type: "weights-update-end", toVersion: "3", durationMs: 95_000 });
    expect(formatStatus(status(), 200)).toMatch(/\(the update took ≤2m \(between polls\)\)/);
  });

  it("shows episodes done of planned and an ETA from the pace so far", () => {
    const { bus, status } = tracked();
    bus.emit({ type: "episodes-planned", planned: 4, tasks: 2, samplesPerTask: 2, epochs: 1 });
    const first = bus.emit({ type: "episode-start", episodeId: "e0", groupId: "g" });
    bus.emit({ type: "episode-end", episodeId: "e0", groupId: "g", score: 1, failure: null, steps: 1, weightVersion: "1" });
    // one of four done 60 s after the first began: three more at that pace
    const progress = status(first.at + 60_000).progress;
    expect(progress).toMatchObject({ episodes_done: 1, episodes_planned: 4, finished: false, eta_ms: 180_000 });
    expect(formatStatus(status(first.at + 60_000))).toContain("progress    episodes 1 of 4 done · weight version – · 0 batches trained · about 3 min left");
  });

  it("says why a batch's worth of ready samples waits (the per-session share), until a batch leaves", () => {
    const { bus, status } = tracked();
    for (let turn = 0; turn < 6; turn++) bus.emit(sample(turn, 1));
    bus.emit({ type: "batch-held", ready: 6, size: 4 });
    const text = formatStatus(status());
    expect(text).toContain("6 samples ready (a batch takes 4)");
    // an event recorded before the store named the sessions and the time
    expect(text).toMatch(/held back since \d+s ago: a batch takes at most 1 of one session's \(training\.fair_batch\.max_session_share 0\.25\); the held-back samples complete a batch once they waited training\.fair_batch\.relax_after_s 300 s/);
    // the store names the sessions over the share (it fits the sessions with samples ready) and when they complete a batch
    const completesAt = Date.now() + 250_000;
    bus.emit({ type: "batch-held", ready: 6, size: 4, activeSessions: 2, perSession: 2, sessions: [{ unit: "chatty", ready: 5 }], completesAt });
    expect(status().samples.held_back).toMatchObject({ active_sessions: 2, per_session: 2, sessions: [{ session: "chatty", ready: 5 }], completes_at: completesAt });
    expect(formatStatus(status())).toMatch(
      /held back since \d+s ago: session chatty has 5 ready; a batch takes at most 2 of one session's while 2 sessions have samples ready \(training\.fair_batch\.max_session_share 0\.25\); the held-back samples complete a batch in 4m, once the oldest waited training\.fair_batch\.relax_after_s 300 s/,
    );
    expect(formatStatus(status(), 200, "absolute")).toContain(`complete a batch at ${new Date(completesAt).toTimeString().slice(0, 8)}, once the oldest waited`);
    bus.emit({ type: "batch-delivered", rolloutId: 0, batchId: "b0", size: 4, meanReward: 1, evalScore: null, counts: { positive: 4, zero: 0, negative: 0 }, ready: 2 });
    expect(status().samples.held_back).toBeNull();
    expect(formatStatus(status())).not.toContain("held back");
  });

  it("says where every sample is as one sum, and the judged turns as made + without a sample", () => {
    const { bus, status } = tracked();
    bus.emit({ type: "store-opened", ready: 2, outstanding: [{ batchId: "earlier", size: 4 }], acknowledged: 8, droppedStale: 1 });
    for (let turn = 0; turn < 5; turn++) bus.emit(sample(turn, 1));
    bus.emit({ type: "turn-judged", sessionId: "s", turn: 5, method: "binary", score: 0, hintAccepted: null, sample: null, skipped: "no signal", skipCategory: "no-signal" });
    bus.emit({ type: "sample-dropped", sampleId: "old:1", reason: "stale", detail: "9 versions behind" });
    bus.emit({ type: "batch-delivered", rolloutId: 0, batchId: "b0", size: 4, meanReward: 1, evalScore: null, counts: { positive: 4, zero: 0, negative: 0 } });
    bus.emit({ type: "batch-acknowledged", rolloutId: 0, batchId: "b0" });
    bus.emit({ type: "batch-delivered", rolloutId: 1, batchId: "earlier", size: 4, meanReward: 1, evalScore: null, counts: { positive: 4, zero: 0, negative: 0 } });
    const snapshot = status();
    expect(snapshot.samples).toMatchObject({ made: 5, from_earlier_runs: 6, ready: 2, in_training: 4, trained: 4, dropped: { stale: 1, invalid: 0 }, delivered: 8 });
    const text = formatStatus(snapshot, 160);
    expect(text).toContain("samples     5 made + 6 from earlier runs = 2 ready + 4 in training + 4 trained + 1 dropped stale\n");
    expect(text).toContain("judging     6 judged = 5 made a sample + 1 without a sample (no-signal 1) · 0 waiting for the judge");
    expect(text).toContain("batches     1 trained · 2 delivered (8 samples handed out, re-deliveries included)");
  });

  it("piped --watch prints the block once, then only the lines that changed, with the time", () => {
    const { bus, status } = tracked();
    const printer = new PipedStatusPrinter();
    const block = printer.next(status());
    expect(block).toContain("engines\n");
    expect(printer.next(status())).toBe(""); // nothing changed (the uptime is not printed when piped)
    bus.emit(sample(0, 1));
    const changed = printer.next(status(), 100, new Date(2026, 0, 1, 12, 0, 5)).trimEnd().split("\n");
    expect(changed).toContain("12:00:05 rewards     1 samples · mean 1.000 · 1 good (above 0) · 0 neutral (0) · 0 bad (below 0)");
    expect(changed.some((line) => line.includes("next batch") && line.includes("1 of 4 samples ready"))).toBe(true);
    expect(changed.join("\n")).not.toContain("engines");
  });
});

describe("status: the sampling clients asked for", () => {
  it("counts main turns per client, those that asked for other sampling (by setting) and those drawn off-policy; side turns are not counted", () => {
    const { bus, status } = tracked();
    const end = (turn: number, client: string, extra: Partial<Extract<RunEventInput, { type: "turn-end" }>> = {}, turnType: "main" | "side" = "main"): RunEventInput =>
      ({ type: "turn-end", sessionId: "s", turn, turnType, finishReason: "stop", promptTokens: 1, responseTokens: 1, ttftMs: 1, totalMs: 2, weightVersions: ["default"], continuedAfterAbort: 0, client, ...extra });
    bus.emit(end(0, "claude-cli", { samplingAsked: { temperature: 1 } }));
    bus.emit(end(1, "claude-cli", { samplingAsked: { temperature: 1, top_p: 0.95 } }));
    bus.emit(end(2, "claude-cli"));
    bus.emit(end(3, "codex_cli_rs"));
    bus.emit(end(4, "QwenCode", { offPolicy: true }));
    bus.emit(end(5, "claude-cli", { samplingAsked: { temperature: 1 } }, "side"));
    const snapshot = status();
    expect(snapshot.clients).toEqual([
      { client: "claude-cli", main_turns: 3, asked_otherwise: 2, off_policy: 0, asked: { temperature: 2, top_p: 1 } },
      { client: "codex_cli_rs", main_turns: 1, asked_otherwise: 0, off_policy: 0, asked: {} },
      { client: "QwenCode", main_turns: 1, asked_otherwise: 0, off_policy: 1, asked: {} },
    ]);
    const text = formatStatus(snapshot, 200);
    expect(text).toContain("  claude-cli: 2 of 3 main turns asked for other sampling (temperature ×2, top_p ×1), drawn at the trainer's instead");
    expect(text).toContain("  QwenCode: 1 drawn off-policy (not trained)");
    expect(text).not.toContain("codex_cli_rs:");
  });
});

describe("status: the held-out evaluation", () => {
  const done = (version: string, meanScore: number, winRate: number | null, run?: string): RunEventInput => ({
    type: "evaluation-done", version, versionAtEnd: version, baseVersion: version === "0" ? null : "0", ...(run === undefined ? {} : { run }), sessions: 16, scored: 16, meanScore,
    scoreCi: { low: meanScore - 0.1, high: Math.min(1, meanScore + 0.1) }, winRate, winRateCi: winRate === null ? null : { low: winRate - 0.2, high: Math.min(1, winRate + 0.2) },
    requests: { policy: 48, simulator: 32, scorer: 48 }, episodes: null,
  });

  it("says how to turn it on when it is off, and shows the base and later versions with intervals when it ran, apart from the training reward", () => {
    const { bus, status } = tracked();
    expect(status().evaluation).toEqual({ configured: false, every_versions: 0, stop_if_worse: false, base_version: null, best: null, versions: [] });
    expect(formatStatus(status(), 200)).toContain("held-out    not configured: set evaluation.every_versions (docs/evaluation.md), or run `npx");
    expect(formatStatus(status(), 200, "relative", "/tmp/a run")).toMatch(/or run `npx (--prefix \S+ )?openclaw-rl eval --run '\/tmp\/a run'`/); // (the run status read: a custom records.dir)
    bus.emit(done("0", 0.731, null));
    bus.emit(done("8", 0.981, 0.781));
    const snapshot = status();
    expect(snapshot.evaluation.base_version).toBe("0");
    expect(snapshot.evaluation.versions.map((point) => [point.version, point.mean_score, point.win_rate, point.requests])).toEqual([["0", 0.731, null, 128], ["8", 0.981, 0.781, 128]]);
    const text = formatStatus(snapshot, 200);
    expect(text).toContain("held-out    (95% intervals; not the training reward) base v0: score 73.1% [63.1, 83.1] · 128 engine requests");
    expect(text).toContain("            v8: score 98.1% [88.1, 100.0] · 128 engine requests · wins 78.1% [58.1, 98.1] against the base");
    // the best so far stays v8 when a later version scores less
    bus.emit(done("12", 0.5, 0.3));
    expect(status().evaluation.best).toEqual({ version: "8", mean_score: 0.981, score_ci: { low: 0.881, high: 1 } });
    // rehearsal saves no checkpoint, so no export is offered; with slime convert-checkpoint --best exports it
    expect(formatStatus(status(), 200)).toContain("            best so far v8: score 98.1% [88.1, 100.0]\n");
    expect(formatStatus(status(), 200)).not.toContain("convert-checkpoint");
    expect(evaluationLines(status().evaluation, null, { run: null, engine: "slime" })).toContain("            best so far v8: score 98.1% [88.1, 100.0] · convert-checkpoint --best exports it");
  });

  it("shows the base weights' evaluation as the base whenever it arrives, says when it is another run's, and never calls another version the base", () => {
    const { bus, status } = tracked();
    const run = status().run_id!;
    bus.emit(done("15", 1, null, run));
    // a version paired with a base this run's tally has not seen: no base row, and the command that records one
    expect(status().evaluation.versions.map((point) => [point.version, point.base])).toEqual([["15", false]]);
    expect(formatStatus(status(), 200, "relative", "/tmp/run")).toMatch(/held-out    \(95% intervals; not the training reward\) no base evaluated in this run: `npx (--prefix \S+ )?openclaw-rl eval --run \/tmp\/run` evaluates the base weights/);
    expect(formatStatus(status(), 200)).not.toContain("base v15");
    // the base arrives later (eval evaluates it first, or hands in an earlier run's): it leads, marked as that run's
    bus.emit(done("0", 0.669, null, "20261127-101010"));
    bus.emit(done("0", 0.669, null, "20261127-101010")); // (handed in again by a second eval: shown once)
    const snapshot = status();
    expect(snapshot.evaluation.versions.map((point) => [point.version, point.base, point.run])).toEqual([["0", true, "20261127-101010"], ["15", false, run]]);
    const text = formatStatus(snapshot, 200);
    expect(text).toContain("held-out    (95% intervals; not the training reward) base v0 (run 20261127-101010's, reused: the same base weights and evaluation plan): score 66.9%");
    expect(text).toContain("            v15: score 100.0% [90.0, 100.0]");
  });
});
