// A trainer restart seen by status and the dashboard, through the real bridge and store: a batch handed to a trainer
// that died is delivered again (the same batch) to the restarted one (a new session); status and dashboard count one batch of 4
// trained, plot rollout 0 once, keep the deliveries apart, and show the weight version counted from 0 again.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import type { EventBus } from "../../orchestrator/event-bus.ts";
import type { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { DashboardHistory } from "../../orchestrator/status/dashboard/dashboard-history.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";
import type { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { TestBridgeClient } from "../bridge/fixture-process.ts";
import { openBridgeLoopback, type BridgeLoopback } from "./bridge-loopback.ts";
import { makeSample } from "../bridge/sample-factory.ts";

const recipe = recipeSchema.parse({ name: "t", method: "binary", engine: { kind: "rehearsal" }, training: { batch_size: 4, max_staleness: 50 } });

let loopback: BridgeLoopback;
let store: SampleStore;
let endpoint: { url: string; token: string };
let bus: EventBus;
let versions: WeightVersionTracker;

beforeEach(async () => {
  loopback = await openBridgeLoopback("openclaw-status-restart-");
  ({ store, endpoint, bus, versions } = loopback);
});
afterEach(() => loopback.close());

describe("status and dashboard across a trainer restart", () => {
  it("count one batch of 4 trained, plot rollout 0 once, and show version 0", async () => {
    const status = new StatusTracker(bus, recipe);
    const dashboard = new DashboardHistory({}, "binary", 4);
    bus.subscribe((event) => dashboard.apply(event));
    for (let index = 0; index < 4; index++) await store.put(makeSample(index, { weightVersion: "8" }));
    versions.observe("8");
    bus.emit({ type: "weights-update-end", toVersion: "8", durationMs: 10 });

    const stopped = new TestBridgeClient(endpoint.url, endpoint.token);
    await stopped.hello();
    const first = (await stopped.batch(0, 4))!; // handed to a trainer that was stopped, then killed
    const restarted = new TestBridgeClient(endpoint.url, endpoint.token);
    await restarted.hello(); // a new session, asking again for rollout 0: the same batch
    const again = (await restarted.batch(0, 4))!;
    expect(again.batchId).toBe(first.batchId);
    expect(await restarted.ack(0, again.batchId)).toBe(200); // trained

    expect(status.snapshot()).toMatchObject({
      batches: 1,
      batches_delivered: 2,
      samples: { in_training: 0, trained: 4, delivered: 8 },
      weight_version: "0",
      last_version_reset: { from_version: "8" },
    });
    const snapshot = dashboard.snapshot();
    expect(snapshot.totals).toMatchObject({ batches: 1, batchesDelivered: 2, samples: expect.objectContaining({ trained: 4, inTraining: 0, delivered: 8 }), weightVersion: "0" });
    expect(snapshot.batches.items.map((batch) => [batch.rolloutId, batch.size])).toEqual([[0, 4]]);
    status.close();
  });
});
