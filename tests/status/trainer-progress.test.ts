// The trainer's progress in status: a training step's metrics posted on the bridge's /v1/metrics become a
// trainer-metrics event folded into status; the watchdog says TRAINER_STALLED when a full batch waits past the bound,
// and status shows it until the trainer moves again; checkpoints slime saved are listed, and pruned past the count.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatStatus } from "../../cli/commands/status-format.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { statusSnapshotSchema } from "../../contracts/status.ts";
import { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { CheckpointWatcher } from "../../orchestrator/checkpoints/checkpoint-watcher.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";
import { TRAINER_STALLED, TrainerWatchdog } from "../../orchestrator/status/trainer-watchdog.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";

const recipe = recipeSchema.parse({ name: "t", method: "binary", engine: { kind: "rehearsal" }, training: { batch_size: 4 } });
const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe("training metrics over the bridge", () => {
  it("a POST /v1/metrics becomes status' trainer step, loss, grad norm, lr and log-prob difference", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "metrics-"));
    const store = await SampleStore.open(path.join(dir, "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(), 2) });
    const bus = new EventBus();
    const bridge = new BridgeServer({ store, bus, recordsDir: dir });
    const endpoint = await bridge.start({ host: "127.0.0.1", port: 0 });
    closers.push(() => store.close(), () => bridge.close());
    const tracker = new StatusTracker(bus, recipe);
    const post = (body: unknown, token = endpoint.token) =>
      fetch(`${endpoint.url}/v1/metrics`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    const metrics = { loss: 0.125, pg_loss: 0.1, grad_norm: 1.5, "lr-pg_0": 1e-5, train_rollout_logprob_abs_diff: 0.0123 };
    expect((await post({ version: 1, type: "trainer-metrics", session: "s", pid: 7, step: 3, metrics }, "wrong")).status).toBe(401);
    expect((await post({ version: 1, type: "trainer-metrics", session: "s", pid: 7, step: 3, metrics: { loss: "high" } })).status).toBe(400);
    expect((await post({ version: 1, type: "trainer-metrics", session: "s", pid: 7, step: 3, metrics })).status).toBe(204);
    const status = statusSnapshotSchema.parse(tracker.snapshot());
    expect(status.trainer).toMatchObject({ step: 3, loss: 0.125, grad_norm: 1.5, lr: 1e-5, logprob_diff: 0.0123, stalled: false });
    expect(bus.recent().find((event) => event.type === "trainer-metrics")).toMatchObject({ metrics });
    expect(formatStatus(status)).toContain("trainer     step 3 · loss 0.1250 · grad norm 1.5000 · lr 1.00e-5 · train/rollout log-prob diff 0.0123");
  });
});

describe("TrainerWatchdog", () => {
  function watched(ready: { count: number }) {
    const bus = new EventBus();
    let now = 1_000_000;
    const clock = { advance: (ms: number) => (now += ms) };
    const watchdog = new TrainerWatchdog({ bus, ready: () => ready.count, batchSize: 4, stallAfterMs: 60_000, now: () => now });
    closers.push(() => watchdog.stop());
    return { bus, clock, watchdog, tracker: new StatusTracker(bus, recipe) };
  }
  const stalls = (bus: EventBus) => bus.recent().filter((event) => event.type === "error" && event.code === TRAINER_STALLED);

  it("reports a stall once a full batch waited past the bound with no progress, once, until the trainer moves", () => {
    const ready = { count: 4 };
    const { bus, clock, watchdog, tracker } = watched(ready);
    watchdog.check();
    clock.advance(59_000);
    watchdog.check();
    expect(stalls(bus)).toHaveLength(0);
    clock.advance(2_000);
    watchdog.check();
    watchdog.check();
    expect(stalls(bus)).toHaveLength(1);
    const status = tracker.snapshot();
    expect(status.trainer.stalled).toBe(true);
    expect(status.errors.at(-1)).toMatchObject({ code: TRAINER_STALLED, hint: expect.stringContaining("training.stall_after_s") });
    expect(formatStatus(statusSnapshotSchema.parse(status))).toContain("STALLED");
    bus.emit({ type: "trainer-metrics", step: 9, loss: 1, gradNorm: 1, logprobDiff: null, lr: null, metrics: { loss: 1, grad_norm: 1 } });
    expect(tracker.snapshot().trainer.stalled).toBe(false);
    clock.advance(61_000);
    watchdog.check();
    expect(stalls(bus)).toHaveLength(2);
  });

  it("does not count time when fewer than a batch wait (a trainer waiting for samples is not stalled)", () => {
    const ready = { count: 3 };
    const { bus, clock, watchdog } = watched(ready);
    clock.advance(600_000);
    watchdog.check();
    ready.count = 4;
    watchdog.check();
    clock.advance(30_000);
    watchdog.check();
    expect(stalls(bus)).toHaveLength(0);
    clock.advance(31_000);
    watchdog.check();
    expect(stalls(bus)).toHaveLength(1);
  });

  it("a batch delivered or acknowledged is progress", () => {
    const ready = { count: 8 };
    const { bus, clock, watchdog } = watched(ready);
    watchdog.check();
    clock.advance(50_000);
    bus.emit({ type: "batch-acknowledged", rolloutId: 1, batchId: "b1" });
    clock.advance(50_000);
    watchdog.check();
    expect(stalls(bus)).toHaveLength(0);
  });
});

describe("CheckpointWatcher", () => {
  it("lists what slime saved in status and prunes past training.keep_checkpoints", () => {
    const saveDir = mkdtempSync(path.join(tmpdir(), "save-"));
    const bus = new EventBus();
    const tracker = new StatusTracker(bus, recipe);
    const watcher = new CheckpointWatcher({ bus, saveDir, keep: 2 });
    const save = (iteration: number) => {
      const folder = path.join(saveDir, `iter_${String(iteration).padStart(7, "0")}`);
      mkdirSync(folder);
      writeFileSync(path.join(folder, "common.pt"), Buffer.alloc(2048));
      writeFileSync(path.join(saveDir, "latest_checkpointed_iteration.txt"), String(iteration));
    };
    watcher.scan();
    expect(tracker.snapshot().checkpoints).toEqual([]);
    save(4);
    save(9);
    watcher.scan();
    watcher.scan();
    expect(bus.recent().filter((event) => event.type === "checkpoint-saved").map((event) => event.type === "checkpoint-saved" && event.iteration)).toEqual([4, 9]);
    save(14);
    mkdirSync(path.join(saveDir, "iter_0000019")); // being written: not listed yet
    watcher.scan();
    const status = statusSnapshotSchema.parse(tracker.snapshot());
    expect(status.checkpoints.map((checkpoint) => [checkpoint.iteration, checkpoint.latest, checkpoint.bytes])).toEqual([
      [14, true, 2048],
      [9, false, 2048],
    ]);
    expect(bus.recent().some((event) => event.type === "checkpoint-pruned" && event.iteration === 4)).toBe(true);
    expect(formatStatus(status)).toMatch(/checkpoints 2 kept\n {2}iter 0000014 {2}0\.0 MiB .*iter_0000014 {2}\(latest\)/);
  });
});
