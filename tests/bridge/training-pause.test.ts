// The training pause (evaluation.stop_if_worse) as the bridge obeys it, with a real sample store on loopback: while
// paused a trainer asking for a batch gets batch-wait though samples are ready; a resume hands the waiting poll its
// batch; the pause and the resume are said on the bus once; the trainer watchdog does not call a paused trainer stalled.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HeldOutDrop } from "../../contracts/evaluation.ts";
import { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { TrainingPause } from "../../orchestrator/bridge/training-pause.ts";
import { PAUSE_RECORD_FILE, PauseRecordFile } from "../../orchestrator/bridge/training-pause-record.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { TRAINER_STALLED, TrainerWatchdog } from "../../orchestrator/status/trainer-watchdog.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { helloClient, type TestBridgeClient } from "./fixture-process.ts";
import { makeSample } from "./sample-factory.ts";

const drop: HeldOutDrop = { version: "6", meanScore: 0.4, scoreCi: { low: 0.3, high: 0.5 }, bestVersion: "3", bestMeanScore: 0.9, bestScoreCi: { low: 0.8, high: 1 }, difference: -0.5, differenceCi: { low: -0.6, high: -0.4 }, pairs: 8 };

let dir: string;
let store: SampleStore;
let bus: EventBus;
let pause: TrainingPause;
let bridge: BridgeServer;
let client: TestBridgeClient;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "openclaw-pause-"));
  store = await SampleStore.open(join(dir, "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(), 2) });
  bus = new EventBus();
  pause = new TrainingPause(bus, "`npx openclaw-rl resume-training --run run`");
  bridge = new BridgeServer({ store, bus, recordsDir: dir, pause });
  client = await helloClient(bridge);
});
afterEach(async () => {
  await bridge.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the training pause at the bridge", () => {
  it("paused: batch-wait though a batch's worth is ready, no batch-held; resumed: the poll that waits gets its batch", async () => {
    await store.put(makeSample(0));
    await store.put(makeSample(1));
    expect(pause.pauseFor(drop, "v6 below v3")).toBe(true);
    expect(pause.pauseFor(drop, "again")).toBe(false); // (one pause at a time: the first reason stays)
    expect(await client.batch(0, 2, 200)).toBeNull();
    expect(store.counts().ready).toBe(2);
    const waiting = client.batch(0, 2, 20_000);
    // the resume wakes the poll that waits (whether it arrived before or after: either way it is handed the batch)
    expect(pause.resume("test")).toMatchObject({ resumed: true, pause: { message: "v6 below v3" } });
    const batch = (await waiting)!;
    expect(batch.samples.map((sample) => sample.id)).toEqual(["session-0:0", "session-1:1"]);
    expect(pause.resume("test")).toEqual({ resumed: false, pause: null });
    const types = bus.recent().map((event) => event.type);
    expect(types).toEqual(["training-paused", "training-resumed", "batch-delivered"]);
    expect(bus.recent()[0]).toMatchObject({ type: "training-paused", reason: "held-out-worse", message: "v6 below v3", resume: "`npx openclaw-rl resume-training --run run`", drop });
  });

  it("a pause that comes while a poll waits for samples: the samples that arrive are not handed out", async () => {
    const waiting = client.batch(0, 2, 2000);
    pause.pauseFor(drop, "v6 below v3");
    await store.put(makeSample(0));
    await store.put(makeSample(1));
    expect(await waiting).toBeNull();
    expect(store.counts()).toMatchObject({ ready: 2, delivered: 0 });
    expect(bus.recent().filter((event) => event.type === "batch-delivered" || event.type === "batch-held")).toEqual([]);
  });

  it("the watchdog calls no paused trainer stalled, and counts the bound again from the resume", () => {
    let now = 1_000_000;
    const watchdog = new TrainerWatchdog({ bus, ready: () => 4, paused: () => pause.paused(), batchSize: 4, stallAfterMs: 60_000, now: () => now });
    try {
      pause.pauseFor(drop, "v6 below v3");
      watchdog.check();
      now += 3_600_000;
      watchdog.check();
      pause.resume("test");
      watchdog.check();
      const stalls = () => bus.recent().filter((event) => event.type === "error" && event.code === TRAINER_STALLED);
      expect(stalls()).toHaveLength(0);
      now += 61_000;
      watchdog.check();
      expect(stalls()).toHaveLength(1);
    } finally {
      watchdog.stop();
    }
  });

  it("the record in the run folder follows the state: written on a pause, taken up by a new pause object, removed on a resume", async () => {
    const file = join(dir, PAUSE_RECORD_FILE);
    const recorded = new TrainingPause(bus, "resume", new PauseRecordFile(dir));
    recorded.pauseFor(drop, "v6 below v3");
    await recorded.recorded();
    const since = bus.recent()[0]!.at;
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ version: 1, reason: "held-out-worse", since, message: "v6 below v3", drop });

    const restartedBus = new EventBus();
    const restarted = new TrainingPause(restartedBus, "resume", new PauseRecordFile(dir));
    expect(await restarted.restoreRecorded()).toBe(true);
    expect(restarted.paused()).toBe(true);
    const message = `v6 below v3 (paused before a restart, since ${new Date(since).toISOString()})`;
    expect(restartedBus.recent()).toMatchObject([{ type: "training-paused", reason: "held-out-worse", message, resume: "resume", drop, since }]);
    expect(restarted.resume("test")).toEqual({ resumed: true, pause: { since, message } });
    await restarted.recorded();
    expect(existsSync(file)).toBe(false);
    expect(await new TrainingPause(new EventBus(), "resume", new PauseRecordFile(dir)).restoreRecorded()).toBe(false);
  });

  it("a record that cannot be written is said on the bus; the pause holds in memory", async () => {
    const recorded = new TrainingPause(bus, "resume", new PauseRecordFile(join(dir, "no-such-folder")));
    recorded.pauseFor(drop, "v6 below v3");
    await recorded.recorded();
    expect(recorded.paused()).toBe(true);
    const errors = bus.recent().filter((event) => event.type === "error");
    expect(errors).toMatchObject([{ source: "training pause", code: "PATH_UNWRITABLE", message: expect.stringContaining(join(dir, "no-such-folder", PAUSE_RECORD_FILE)) }]);
  });
});
