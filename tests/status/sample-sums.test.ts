// Where every sample is, on status, checked against the real store behind the real bridge at each step of two runs
// in one records folder: samples stored, judged turns without one, batches delivered, acknowledged, handed out again
// to a restarted trainer, given back, stale drops, and a second run that finds what the first left. After each step
// the parts are the store's own counts and add up: made + from earlier runs = ready + in training + trained + dropped.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { announceSamples } from "../../orchestrator/sinks/announcing-sink.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { TestBridgeClient } from "../bridge/fixture-process.ts";
import { makeSample } from "../bridge/sample-factory.ts";

const BATCH = 4;
const recipe = recipeSchema.parse({ name: "sums", method: "binary", engine: { kind: "rehearsal" }, training: { batch_size: BATCH, max_staleness: 2 } });

interface OneRun {
  bus: EventBus;
  store: SampleStore;
  bridge: BridgeServer;
  status: StatusTracker;
  endpoint: { url: string; token: string };
  versions: WeightVersionTracker;
  /** The store's totals when this run opened it. */
  base: { acknowledged: number; droppedStale: number };
  put(index: number, version: string): Promise<void>;
  client(): Promise<TestBridgeClient>;
  close(): Promise<void>;
}

const open: OneRun[] = [];
afterEach(async () => {
  for (const run of open.splice(0)) await run.close();
});

/** A run as orchestrator/run.ts wires its store, bridge and status (the store announced as it was found). */
async function startRun(dir: string, version: number): Promise<OneRun> {
  const bus = new EventBus();
  const versions = new WeightVersionTracker(version);
  const status = new StatusTracker(bus, recipe);
  const store = await SampleStore.open(join(dir, "store"), { staleness: new StalenessPolicy(versions, 2), fairBatch: { maxSessionShare: 0.25, relaxAfterMs: 300_000 } });
  const { ready, acknowledged, droppedStale } = store.counts();
  bus.emit({ type: "store-opened", ready, outstanding: store.outstanding().map(({ batchId, size }) => ({ batchId, size })), acknowledged, droppedStale });
  const bridge = new BridgeServer({ store, bus, recordsDir: dir });
  const endpoint = await bridge.start({ host: "127.0.0.1", port: 0 });
  const sink = announceSamples(store, bus, BATCH, () => store.counts().ready);
  const run: OneRun = {
    bus, store, bridge, status, endpoint, versions, base: { acknowledged, droppedStale },
    async put(index, weightVersion) {
      await sink.put({ ...makeSample(index, { weightVersion }), id: `user:${index}`, sessionId: "user", turn: index });
      bus.emit({ type: "turn-judged", sessionId: "user", turn: index, method: "binary", score: 1, hintAccepted: null, sample: { kind: "rl", reward: 1, why: "binary: +1" }, skipped: null });
    },
    async client() {
      const client = new TestBridgeClient(endpoint.url, endpoint.token);
      await client.hello();
      return client;
    },
    async close() {
      status.close();
      await bridge.close();
      await store.close();
    },
  };
  open.push(run);
  return run;
}

/** status's sample counts are the store's, and they add up. */
function expectSums(run: OneRun, step: string): ReturnType<StatusTracker["snapshot"]>["samples"] {
  const { samples, judging } = run.status.snapshot();
  const truth = run.store.counts();
  expect({ ready: samples.ready, inTraining: samples.in_training, trained: samples.trained, stale: samples.dropped.stale }, `the store's counts, ${step}`).toEqual({
    ready: truth.ready, inTraining: truth.delivered, trained: truth.acknowledged - run.base.acknowledged, stale: truth.droppedStale - run.base.droppedStale,
  });
  expect(samples.made + samples.from_earlier_runs, `made + from earlier runs = where each sample is, ${step}`).toBe(samples.ready + samples.in_training + samples.trained + samples.dropped.stale + samples.dropped.invalid);
  expect(judging.judged, `judged = made + without a sample, ${step}`).toBe(samples.made + judging.without_sample);
  return samples;
}

describe("status's sample counts against the real store", () => {
  it("add up after every step of two runs in one records folder, and are the store's", async () => {
    const dir = await mkdtemp(join(tmpdir(), "openclaw-sample-sums-"));
    const first = await startRun(dir, 0);
    expectSums(first, "before any sample");
    for (let index = 0; index < 6; index++) await first.put(index, "0");
    first.bus.emit({ type: "turn-judged", sessionId: "user", turn: 6, method: "binary", score: 0, hintAccepted: null, sample: null, skipped: "no signal", skipCategory: "no-signal" });
    expect(expectSums(first, "six stored, one without a sample")).toMatchObject({ made: 6, ready: 6 });

    const trainer = await first.client();
    const batch0 = (await trainer.batch(0, BATCH))!;
    expectSums(first, "a batch delivered");
    expect(await trainer.ack(0, batch0.batchId)).toBe(200);
    expect(expectSums(first, "acknowledged")).toMatchObject({ trained: 4, ready: 2 });
    for (let index = 7; index < 11; index++) await first.put(index, "0");
    const batch1 = (await trainer.batch(1, BATCH))!;
    expectSums(first, "a second batch out");

    // the trainer restarts: the new one asks for rollout 1 again and gets the same batch, counted out once
    const restarted = await first.client();
    expect((await restarted.batch(1, BATCH))!.batchId).toBe(batch1.batchId);
    expect(expectSums(first, "handed out again")).toMatchObject({ in_training: 4, delivered: 12 });
    // it asks for rollout 2 without holding rollout 1's: that one is given back; version 3 makes the v0 samples stale
    first.versions.observe("3");
    expect(await restarted.batch(2, BATCH)).toBeNull();
    expect(expectSums(first, "given back, then dropped stale")).toMatchObject({ in_training: 0, ready: 0, dropped: { stale: 6, invalid: 0 } });
    for (let index = 11; index < 17; index++) await first.put(index, "3");
    const batch2 = (await restarted.batch(2, BATCH))!;
    expect(expectSums(first, "the first run as it stops")).toMatchObject({ made: 16, ready: 2, in_training: 4, trained: 4 });
    await first.close();
    open.splice(0);

    // the second run finds 2 ready and batch2 out: counted apart from what it makes
    const second = await startRun(dir, 3);
    expect(expectSums(second, "the second run opened the store")).toMatchObject({ made: 0, from_earlier_runs: 6, ready: 2, in_training: 4, trained: 0 });
    await second.put(100, "3");
    await second.put(101, "3");
    const resumed = await second.client();
    expect((await resumed.batch(2, BATCH))!.batchId).toBe(batch2.batchId); // the earlier trainer's batch, handed to the new one
    expect(await resumed.ack(2, batch2.batchId)).toBe(200);
    const batch3 = (await resumed.batch(3, BATCH))!;
    expect(await resumed.ack(3, batch3.batchId)).toBe(200);
    expect(expectSums(second, "the second run trained both")).toMatchObject({ made: 2, from_earlier_runs: 6, ready: 0, in_training: 0, trained: 8 });
  });
});
