// The bridge holds new batches while continuous evaluation evaluates the run's base, so the base is the base weights:
// a trainer that asks meanwhile waits (and gets batch-wait at its long-poll's end), then gets its batch once released.
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

let store: SampleStore;
let bus: EventBus;
let bridge: BridgeServer;
let client: TestBridgeClient;
let held: string[];

beforeEach(async () => {
  const dir = await mkdtemp(join(tmpdir(), "openclaw-base-hold-"));
  store = await SampleStore.open(join(dir, "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(), 2) });
  bus = new EventBus();
  held = [];
  bus.subscribe((event) => {
    if (event.type === "batch-held") held.push(event.type);
  });
  bridge = new BridgeServer({ store, bus, recordsDir: dir });
  client = await helloClient(bridge);
});
afterEach(async () => {
  await bridge.close();
  await store.close();
});

describe("the bridge holds batches while the base is evaluated", () => {
  it("hands out nothing while held, and the batch once released", async () => {
    let evaluatingBase = true;
    bridge.holdWhile(() => evaluatingBase);
    for (let index = 0; index < 2; index++) await store.put(makeSample(index));
    expect(bridge.holdingBatches()).toBe(true);
    // a full batch is ready, yet held: the long-poll ends with no batch, and no "held back by the share" is said
    expect(await client.batch(0, 2, 600)).toBeNull();
    expect(store.counts()).toMatchObject({ ready: 2, delivered: 0 });
    expect(held).toEqual([]);
    // a request waiting when the base's evaluation ends gets its batch within the same long-poll
    const waiting = client.batch(0, 2, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    evaluatingBase = false;
    const batch = (await waiting)!;
    expect(batch.samples.map((sample) => sample.id)).toEqual(["session-0:0", "session-1:1"]);
    expect(bridge.holdingBatches()).toBe(false);
  });
});
