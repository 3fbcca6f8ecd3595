// The status tracker's fold of run events: a trainer restart (weights-version-reset) moves the weight version back
// to 0, and batches count what was trained (acknowledged), with every delivery (re-deliveries included) apart.
import { describe, expect, it } from "vitest";
import { formatStatus } from "../../cli/commands/status-format.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { statusSnapshotSchema } from "../../contracts/status.ts";
import { RunTally } from "../../orchestrator/status/run-tally.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";

const recipe = recipeSchema.parse({ name: "t", method: "binary", engine: { kind: "rehearsal" }, training: { batch_size: 4 } });

function wiredTracker() {
  const bus = new EventBus();
  const tracker = new StatusTracker(bus, recipe);
  return { bus, tracker };
}

describe("StatusTracker", () => {
  it("follows a weights-version-reset: the version goes back to 0 and status says why", () => {
    const { bus, tracker } = wiredTracker();
    bus.emit({ type: "weights-update-start", fromVersion: "7" });
    bus.emit({ type: "weights-update-end", toVersion: "8", durationMs: 1200 });
    expect(tracker.snapshot().weight_version).toBe("8");
    const reason = "slime's rollout function is a new process (pid 1 → 2): slime restarted, its weight versions count from 0 again";
    const reset = bus.emit({ type: "weights-version-reset", fromVersion: "8", reason });
    let status = statusSnapshotSchema.parse(tracker.snapshot());
    expect(status).toMatchObject({ weight_version: "0", weights_updating: false, last_version_reset: { at: reset.at, from_version: "8", reason } });
    expect(formatStatus(status)).toMatch(/weights {5}version 0 · counted from 0 again \d+s ago \(was 8: the trainer restarted\)/);
    bus.emit({ type: "weights-update-start", fromVersion: "0" });
    bus.emit({ type: "weights-update-end", toVersion: "1", durationMs: 900 });
    status = statusSnapshotSchema.parse(tracker.snapshot());
    expect(status.weight_version).toBe("1");
    // the bracket names what it measures ("(0s)" alone read as a second age), and v1 is the restarted trainer's initial sync
    expect(formatStatus(status)).toMatch(/weights {5}version 1 · last update \d+s ago \(v1: the trainer's initial sync of the base weights \(the stand-in's initial policy: rehearsal keeps no checkpoint\), no batch trained in it; took ≤0\.9s \(between polls\)\)/);
    tracker.close();
  });

  it("says what v1 holds: slime's resumed checkpoint, or after slime restarted its last checkpoint, else the start", async () => {
    const slime = (training: object) => recipeSchema.parse({ method: "binary", engine: { kind: "slime" }, model: { path: "/models/base" }, training: { batch_size: 4, ...training } });
    const v1 = (tracker: StatusTracker) => formatStatus(statusSnapshotSchema.parse(tracker.snapshot())).match(/\(v1: [^;]*/)?.[0];
    for (const [training, restart, words] of [
      [{}, false, "(v1: the trainer's initial sync of the base weights (model.path /models/base), no batch trained in it"],
      [{ load_dir: "ckpt/resume" }, false, "(v1: the trainer's initial sync of the checkpoint it resumed (training.load_dir ckpt/resume), no batch trained in it"],
      [{}, true, "(v1: the trainer's initial sync of the last checkpoint in training.save_dir, else the base weights (model.path /models/base), no batch trained in it"],
    ] as const) {
      const bus = new EventBus();
      const tracker = new StatusTracker(bus, slime(training));
      if (restart) bus.emit({ type: "weights-version-reset", fromVersion: "3", reason: "slime restarted" });
      await new Promise((resolve) => setTimeout(resolve, 5)); // an update in the reset's millisecond reads as the reset
      bus.emit({ type: "weights-update-end", toVersion: "1", durationMs: 2_400 });
      expect(v1(tracker)).toBe(words);
      tracker.close();
    }
  });

  it("a used records folder whose trainer starts from the base weights says earlier training is not in them", () => {
    const { bus, tracker } = wiredTracker();
    bus.emit({ type: "store-opened", ready: 0, outstanding: [], acknowledged: 20, droppedStale: 0 });
    expect(formatStatus(statusSnapshotSchema.parse(tracker.snapshot()))).toContain(
      "since the records folder was created: 20 trained · 0 dropped stale (earlier runs' training is not in this run's weights: its trainer started from the base weights)",
    );
    tracker.close();
  });

  it("method hybrid: the share of turns per dispatch case, candidates per sample and the trainer's selection numbers", () => {
    const { bus, tracker } = wiredTracker();
    expect(statusSnapshotSchema.parse(tracker.snapshot()).hybrid).toBeNull();
    const judged = (turn: number, hybrid: { case: "hint-and-evaluation" | "hint-only" | "evaluation-only" | "neither"; candidates: number }) =>
      bus.emit({ type: "turn-judged", sessionId: "s", turn, method: "hybrid", score: null, hintAccepted: null, sample: null, skipped: null, hybrid });
    judged(0, { case: "hint-and-evaluation", candidates: 3 });
    judged(1, { case: "hint-and-evaluation", candidates: 2 });
    judged(2, { case: "evaluation-only", candidates: 1 });
    judged(3, { case: "neither", candidates: 0 });
    bus.emit({ type: "trainer-metrics", step: 1, loss: -0.5, gradNorm: null, logprobDiff: null, lr: null, metrics: { loss: -0.5, sel_k_star_mean: 0.75, sel_overlap_at_k_star: 1.5, opd_subset_size: 2 } });
    const status = statusSnapshotSchema.parse(tracker.snapshot());
    expect(status.hybrid).toEqual({ cases: { "hint-and-evaluation": 2, "hint-only": 0, "evaluation-only": 1, neither: 1 }, samples: 3, candidates_per_turn: 2, k_star: 0.75, overlap_at_k_star: 1.5, subset_size: 2 });
    expect(formatStatus(status)).toContain("hybrid      turns: hint-and-evaluation 50% · hint-only 0% · evaluation-only 25% · neither 25% · 2.00 candidates per sample");
    expect(formatStatus(status)).toContain("trainer: k* 0.75 · overlap at k* 1.50 · OPD subset size 2.00");
    tracker.close();
  });

  it("counts episodes: running, finished, failed, and the outcome rate per task group and weight version", () => {
    const { bus, tracker } = wiredTracker();
    expect(formatStatus(statusSnapshotSchema.parse(tracker.snapshot()))).not.toContain("episodes");
    for (const id of ["g1:0", "g1:1", "g2:0", "g2:1"]) bus.emit({ type: "episode-start", episodeId: id, groupId: id.split(":")[0]! });
    bus.emit({ type: "episode-end", episodeId: "g1:0", groupId: "g1", score: 1, failure: null, steps: 3, weightVersion: "4" });
    bus.emit({ type: "episode-end", episodeId: "g1:1", groupId: "g1", score: 0, failure: null, steps: 2, weightVersion: "5" });
    bus.emit({ type: "episode-end", episodeId: "g2:0", groupId: "g2", score: null, failure: "grader crashed", steps: 1, weightVersion: "5" });
    const status = statusSnapshotSchema.parse(tracker.snapshot());
    expect(status.episodes).toEqual({
      running: 1,
      finished: 3,
      failed: 1,
      outcome_rate: 0.5,
      by_group: { g1: { finished: 2, failed: 0, outcome_rate: 0.5 }, g2: { finished: 1, failed: 1, outcome_rate: null } },
      by_version: { "4": { finished: 1, failed: 0, outcome_rate: 1 }, "5": { finished: 2, failed: 1, outcome_rate: 0 } },
      planned: null,
    });
    const text = formatStatus(status);
    expect(text).toContain("episodes    1 running · 3 finished (1 failed) · outcome 50%");
    expect(text).toContain("by weight version: v4 100% of 1 · v5 0% of 2");
    // an older server's status without episodes still parses
    const { episodes: _, ...older } = status;
    expect(statusSnapshotSchema.parse(older).episodes.finished).toBe(0);
    tracker.close();
  });

  it("shows the first version's outcome rate beside the latest ones, and keeps the first past the tally's limit", () => {
    const bus = new EventBus();
    const tally = new RunTally(4, { episodeGroups: 6 });
    bus.subscribe((event) => tally.apply(event));
    const tracker = new StatusTracker(bus, recipe, {}, tally);
    // versions end out of order (episodes of v3 finish after v4's began); "default" is version 0
    const ends: Array<[string, number]> = [["default", 0], ["default", 0], ["1", 0], ["2", 1], ["4", 1], ["3", 0], ["5", 1], ["6", 1], ["7", 1], ["8", 1], ["9", 1]];
    for (const [index, [version, score]] of ends.entries()) {
      bus.emit({ type: "episode-start", episodeId: `e${index}`, groupId: `g${index}` });
      bus.emit({ type: "episode-end", episodeId: `e${index}`, groupId: `g${index}`, score, failure: null, steps: 2, weightVersion: version });
    }
    const status = statusSnapshotSchema.parse(tracker.snapshot());
    // 6 kept: the first (v0) and the five most recently updated, in version order
    expect(Object.keys(status.episodes.by_version)).toEqual(["0", "5", "6", "7", "8", "9"]);
    expect(status.episodes.by_version["0"]).toEqual({ finished: 2, failed: 0, outcome_rate: 0 });
    expect(formatStatus(status, 200)).toContain("            by weight version: v0 0% of 2 · … · v6 100% of 1 · v7 100% of 1 · v8 100% of 1 · v9 100% of 1\n");
    tracker.close();
  });

  it("counts what was trained: a batch re-delivered after its trainer died is one batch of 4, not two", () => {
    const { bus, tracker } = wiredTracker();
    const counts = { positive: 3, zero: 0, negative: 1 };
    for (let turn = 0; turn < 4; turn++) bus.emit({ type: "sample-ready", sampleId: `s:${turn}`, sessionId: "s", turn, kind: "rl", reward: 1, ready: turn + 1, batchSize: 4 });
    bus.emit({ type: "batch-delivered", rolloutId: 0, batchId: "b0-first", size: 4, meanReward: 0.5, evalScore: 0.5, counts });
    expect(tracker.snapshot()).toMatchObject({ batches: 0, batches_delivered: 1, samples: { ready: 0, in_training: 4, trained: 0, delivered: 4 } });
    bus.emit({ type: "weights-version-reset", fromVersion: "3", reason: "slime restarted" }); // its batch stays out
    bus.emit({ type: "batch-delivered", rolloutId: 0, batchId: "b0-first", size: 4, meanReward: 0.5, evalScore: 0.5, counts }); // handed to the new trainer again
    expect(tracker.snapshot()).toMatchObject({ samples: { ready: 0, in_training: 4, delivered: 8 } });
    bus.emit({ type: "batch-acknowledged", rolloutId: 0, batchId: "b0-first" });
    const status = statusSnapshotSchema.parse(tracker.snapshot());
    expect(status).toMatchObject({ batches: 1, batches_delivered: 2, samples: { made: 4, ready: 0, in_training: 0, trained: 4, delivered: 8 } });
    const text = formatStatus(status);
    expect(text).toContain("samples     4 made = 0 ready + 0 in training + 4 trained + 0 dropped stale");
    expect(text).toMatch(/batches {5}1 trained · 2 delivered \(8 samples handed out, re-deliveries included\) · last delivered \d+s ago/);
    tracker.close();
  });

  it("counts the sample gate's refusals by reason and prints them", () => {
    const { bus, tracker } = wiredTracker();
    const judged = (turn: number, skipCategory: "truncated" | "repetition" | "near-empty" | null) =>
      bus.emit({ type: "turn-judged", sessionId: "s", turn, method: "binary", score: null, hintAccepted: null, sample: skipCategory ? null : { kind: "rl", reward: 1, why: "binary: score +1" }, skipped: skipCategory ? `sample gate: ${skipCategory}` : null, skipCategory });
    judged(0, "repetition");
    judged(1, "truncated");
    judged(2, "repetition");
    judged(3, "near-empty");
    bus.emit({ type: "sample-ready", sampleId: "s:4", sessionId: "s", turn: 4, kind: "rl", reward: 1, ready: 1, batchSize: 4 });
    judged(4, null);
    const status = statusSnapshotSchema.parse(tracker.snapshot());
    expect(status.judging).toMatchObject({ judged: 5, without_sample: 4, skipped: { repetition: 2, truncated: 1, "near-empty": 1 } });
    expect(formatStatus(status)).toMatch(/judging {5}5 judged = 1 made a sample \+ 4 without a sample \(repetition 2, (truncated 1, near-empty 1|near-empty 1, truncated 1)\)/);
    tracker.close();
  });

  it("reads a status document of an older server (no last_version_reset) as null", () => {
    const { tracker } = wiredTracker();
    const { last_version_reset: _reset, batches_delivered: _delivered, ...older } = tracker.snapshot();
    expect(statusSnapshotSchema.parse(older)).toMatchObject({ last_version_reset: null, batches_delivered: 0 });
    tracker.close();
  });
});

describe("weight version labels on slime's FSDP backend", () => {
  const lora = recipeSchema.parse({ name: "lora", method: "binary", engine: { kind: "slime" }, training: { lora: {} } });
  const full = recipeSchema.parse({ name: "full", method: "binary", engine: { kind: "slime" } });

  it("status says plainly that version labels are approximate with training.lora (FSDP: its weight sync does not pause generation)", () => {
    const bus = new EventBus();
    const tracker = new StatusTracker(bus, lora);
    const status = statusSnapshotSchema.parse(tracker.snapshot());
    expect(status.version_labels).toEqual({ exact: false, note: expect.stringContaining("weight version labels are approximate on slime's FSDP backend") });
    expect(formatStatus(status)).toContain("⚠ weight version labels are approximate on slime's FSDP backend (training.lora): its weight sync does not pause generation");
    tracker.close();
  });

  it("with Megatron (which pauses generation for the sync) they are exact and status says nothing", () => {
    const bus = new EventBus();
    const tracker = new StatusTracker(bus, full);
    const status = statusSnapshotSchema.parse(tracker.snapshot());
    expect(status.version_labels).toEqual({ exact: true, note: null });
    expect(formatStatus(status)).not.toContain("approximate");
    tracker.close();
  });

  it("a status from before the field parses as exact", () => {
    const bus = new EventBus();
    const tracker = new StatusTracker(bus, full);
    const { version_labels: _dropped, ...older } = tracker.snapshot();
    expect(statusSnapshotSchema.parse(older).version_labels).toEqual({ exact: true, note: null });
    tracker.close();
  });
});
