// training.max_wait_s on the bridge, loopback with a real store: a partial batch goes out once the oldest ready
// sample has waited that long (never before), a full batch still goes out at once, and the partial one is handed
// out again to a client that asks again for its rollout.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { makeSample } from "./sample-factory.ts";
import { helloClient, type TestBridgeClient } from "./fixture-process.ts";

const MAX_WAIT_MS = 400;
const LONG_POLL_MS = 15_000; // far longer than MAX_WAIT_MS: the partial batch, not the long-poll's end, answers

let store: SampleStore;
let bus: EventBus;
let bridge: BridgeServer;
let client: TestBridgeClient;
/** When each batch-delivered event was emitted (ms since the epoch), with its size. */
let delivered: { at: number; size: number }[];

beforeEach(async () => {
  const dir = await mkdtemp(join(tmpdir(), "openclaw-partial-"));
  store = await SampleStore.open(join(dir, "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(), 2) });
  bus = new EventBus();
  delivered = [];
  bus.subscribe((event) => {
    if (event.type === "batch-delivered") delivered.push({ at: Date.now(), size: event.size });
  });
  bridge = new BridgeServer({ store, bus, recordsDir: dir, maxWaitMs: MAX_WAIT_MS });
  client = await helloClient(bridge);
});
afterEach(async () => {
  await bridge.close();
  await store.close();
});

describe("partial batch after training.max_wait_s", () => {
  it("hands out what is ready once the oldest sample has waited max_wait_s, not before", async () => {
    const waiting = client.batch(0, 4, LONG_POLL_MS); // asked before any sample: the first one's arrival starts the clock
    await new Promise((resolve) => setTimeout(resolve, 50));
    await store.put(makeSample(0));
    const firstReadyAt = store.oldestReadyAt()!;
    const batch = (await waiting)!;
    expect(batch.samples.map((sample) => sample.id)).toEqual(["session-0:0"]);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.size).toBe(1);
    expect(delivered[0]!.at - firstReadyAt).toBeGreaterThanOrEqual(MAX_WAIT_MS);
    expect(store.counts()).toMatchObject({ ready: 0, delivered: 1 });
    // the client asks again for the same rollout (its answer lost): the same partial batch, not a new one
    expect((await client.batch(0, 4, 0))!.batchId).toBe(batch.batchId);
    expect(await client.ack(0, batch.batchId)).toBe(200);
  });

  it("a full batch still goes out as soon as it can be made", async () => {
    for (let index = 0; index < 3; index++) await store.put(makeSample(index));
    const batch = (await client.batch(0, 2, LONG_POLL_MS))!;
    expect(batch.samples.map((sample) => sample.id)).toEqual(["session-0:0", "session-1:1"]);
    expect(delivered.map((each) => each.size)).toEqual([2]);
    expect(store.oldestReadyAt()).not.toBeNull(); // the third waits for the next batch
  });

  it("with max_wait_s off, a short batch is never handed out", async () => {
    await bridge.close();
    const dir = await mkdtemp(join(tmpdir(), "openclaw-partial-off-"));
    bridge = new BridgeServer({ store, bus, recordsDir: dir });
    client = await helloClient(bridge);
    await store.put(makeSample(0));
    expect(await client.batch(0, 2, MAX_WAIT_MS * 2)).toBeNull();
    expect(store.partialDue(0)).toBe(false);
    expect(delivered).toEqual([]);
  });
});
