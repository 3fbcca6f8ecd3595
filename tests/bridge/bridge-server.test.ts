// BridgeServer in-process on loopback: token check, message validation, bridge.json, hello, long-poll,
// acknowledgements, events and the teacher fill rule of the batch frame.
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { BridgeServer, bridgeHost } from "../../orchestrator/bridge/bridge-server.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { makeSample } from "./sample-factory.ts";
import { TestBridgeClient } from "./fixture-process.ts";

let dir: string;
let store: SampleStore;
let bus: EventBus;
let bridge: BridgeServer;
let endpoint: { url: string; token: string };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "openclaw-bridge-"));
  store = await SampleStore.open(join(dir, "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(), 2) });
  bus = new EventBus();
  bridge = new BridgeServer({ store, bus, recordsDir: dir });
  endpoint = await bridge.start({ host: "127.0.0.1", port: 0 });
});
afterEach(async () => {
  await bridge.close();
  await store.close();
});

const post = (path: string, body: unknown, token = endpoint.token) =>
  fetch(endpoint.url + path, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(body) });

describe("BridgeServer", () => {
  it("writes bridge.json with mode 0600 and refuses requests without the token", async () => {
    const saved = JSON.parse(await readFile(join(dir, "bridge.json"), "utf8")) as unknown;
    expect(saved).toEqual(endpoint);
    expect((await stat(join(dir, "bridge.json"))).mode & 0o777).toBe(0o600);
    expect(endpoint.token).toMatch(/^[0-9a-f]{64}$/);
    expect((await post("/v1/hello", {}, "wrong")).status).toBe(401);
    expect((await fetch(endpoint.url + "/v1/hello", { method: "POST", body: "{}" })).status).toBe(401);
    expect((await post("/v1/nothing", {})).status).toBe(404);
  });

  it("listens on the head address when the cluster has several nodes (slime's rollout manager may run on any of them)", async () => {
    expect(bridgeHost({ cluster: { nodes: 1, head_address: "10.0.0.1" } })).toBe("127.0.0.1");
    expect(bridgeHost({ cluster: { nodes: 2, head_address: "10.0.0.1" } })).toBe("10.0.0.1");
    // another address of this machine stands in for the head's: the bridge is reached there, with the token only
    const otherDir = await mkdtemp(join(tmpdir(), "openclaw-bridge-head-"));
    const head = new BridgeServer({ store, bus, recordsDir: otherDir });
    const reached = await head.start({ host: bridgeHost({ cluster: { nodes: 2, head_address: "127.0.0.2" } }), port: 0 });
    try {
      expect(reached.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      const hello = { version: 1, type: "hello", session: "head", pid: 7, routers: { policy: null, judge: null } };
      expect((await fetch(reached.url + "/v1/hello", { method: "POST", body: JSON.stringify(hello) })).status).toBe(401);
      const answer = await fetch(reached.url + "/v1/hello", { method: "POST", headers: { authorization: `Bearer ${reached.token}` }, body: JSON.stringify(hello) });
      expect(answer.status).toBe(200);
      expect(head.hello()).toMatchObject({ pid: 7 });
    } finally {
      await head.close();
    }
    // a head address this machine does not have: an error naming the recipe key
    const elsewhere = new BridgeServer({ store, bus, recordsDir: otherDir });
    await expect(elsewhere.start({ host: "192.0.2.1", port: 0 })).rejects.toMatchObject({ code: "RECIPE_INVALID", path: "cluster.head_address" });
  });

  it("answers a malformed message with 400 naming the field, and changes nothing", async () => {
    const response = await post("/v1/batch", { version: 1, type: "batch-request", session: "s", rolloutId: 0, size: 0, waitMs: 0 });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/^size:/);
    const wrongVersion = await post("/v1/hello", { version: 2, type: "hello", session: "s", pid: 1, routers: { policy: null, judge: null } });
    expect(wrongVersion.status).toBe(400);
    expect(bridge.hello()).toBeNull();
  });

  it("records the hello, long-polls, delivers, acknowledges and emits events", async () => {
    const client = new TestBridgeClient(endpoint.url, endpoint.token);
    await post("/v1/hello", { version: 1, type: "hello", session: client.session, pid: 42, routers: { policy: "http://10.0.0.1:3100", judge: null } });
    expect(bridge.hello()).toMatchObject({ pid: 42, routers: { policy: "http://10.0.0.1:3100", judge: null } });
    await store.put(makeSample(0));
    const started = Date.now();
    expect(await client.batch(0, 2, 300)).toBeNull(); // only one ready: batch-wait after the long-poll
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const waiting = client.batch(0, 2, 5000);
    await store.put(makeSample(1));
    const batch = (await waiting)!;
    expect(batch.samples.map((sample) => sample.id)).toEqual(["session-0:0", "session-1:1"]);
    expect(await client.ack(0, batch.batchId)).toBe(200);
    expect(await client.ack(0, batch.batchId)).toBe(200); // a retried ack is fine
    expect(await client.ack(0, "b0-unknown")).toBe(409);
    // a retry sent while the first ack is still being made durable is answered like a late one, never 409
    await store.put(makeSample(2));
    const next = (await client.batch(1, 1))!;
    expect(await Promise.all([client.ack(1, next.batchId), client.ack(1, next.batchId)])).toEqual([200, 200]);
    expect(bus.recent().map((event) => event.type)).toEqual(["batch-delivered", "batch-acknowledged", "batch-delivered", "batch-acknowledged"]);
    expect(bridge.stats()).toMatchObject({ batchesDelivered: 2, batchesAcknowledged: 2, counts: { acknowledged: 3 } });
    expect(bridge.stats().lastBatchAt).not.toBeNull();
  });

  it("says when a new client session replaces another (slime restarted), not on a first hello or a same-session hello", async () => {
    const replaced: unknown[] = [];
    const otherDir = await mkdtemp(join(tmpdir(), "openclaw-bridge-replaced-"));
    const watched = new BridgeServer({ store, bus, recordsDir: otherDir, onClientReplaced: (change) => replaced.push(change) });
    const reached = await watched.start({ host: "127.0.0.1", port: 0 });
    const hello = (session: string, pid: number) =>
      fetch(reached.url + "/v1/hello", { method: "POST", headers: { authorization: `Bearer ${reached.token}` }, body: JSON.stringify({ version: 1, type: "hello", session, pid, routers: { policy: null, judge: null } }) });
    try {
      expect((await hello("old", 1)).status).toBe(200);
      expect((await hello("old", 1)).status).toBe(200); // the same process again (after a broken connection)
      expect(replaced).toEqual([]);
      expect((await hello("new", 2)).status).toBe(200);
      expect(replaced).toEqual([{ previous: { session: "old", pid: 1 }, current: { session: "new", pid: 2 } }]);
    } finally {
      await watched.close();
    }
  });

  it("a new session's hello ends the older session's open long-poll (409), so the batch goes to the new client", async () => {
    const old = new TestBridgeClient(endpoint.url, endpoint.token, "old-slime");
    const current = new TestBridgeClient(endpoint.url, endpoint.token, "new-slime");
    await old.hello();
    const oldPoll = old.batch(0, 2, 10_000).then(
      () => "answered with a batch or a wait",
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 100)); // the old poll is waiting
    await current.hello();
    const newPoll = current.batch(0, 2, 10_000);
    await store.put(makeSample(0));
    await store.put(makeSample(1));
    expect(await oldPoll).toMatch(/^batch: 409 .*SESSION_REPLACED.*replaced by a newer client \(session new-slime/);
    const batch = (await newPoll)!;
    expect(batch.samples).toHaveLength(2);
    expect(store.counts()).toMatchObject({ ready: 0, delivered: 2 });
    await expect(old.batch(1, 1)).rejects.toThrow(/409/); // it asks again: still nothing for it
    expect(await current.ack(0, batch.batchId)).toBe(200);
    expect(store.counts()).toMatchObject({ ready: 0, delivered: 0, acknowledged: 2 });
  });

  it("a batch being read for the old session when the new one says hello goes back to ready, not to the old client", async () => {
    const old = new TestBridgeClient(endpoint.url, endpoint.token, "old-slime");
    const current = new TestBridgeClient(endpoint.url, endpoint.token, "new-slime");
    await old.hello();
    for (let index = 0; index < 2; index++) await store.put(makeSample(index));
    let reading!: () => void;
    const helloSaid = new Promise<void>((resolve) => (reading = resolve));
    const deliver = store.deliver.bind(store);
    store.deliver = async (size, rolloutId) => {
      const batch = await deliver(size, rolloutId);
      await current.hello(); // comes while the old session's batch is being read
      reading();
      return batch;
    };
    await expect(old.batch(0, 2)).rejects.toThrow(/409 .*SESSION_REPLACED/);
    await helloSaid;
    expect(store.counts()).toMatchObject({ ready: 2, delivered: 0 });
  });

  it("keeps out the batches a client says it still holds (handed to the trainer, not yet trained); gives back its others", async () => {
    const client = new TestBridgeClient(endpoint.url, endpoint.token);
    for (let index = 0; index < 6; index++) await store.put(makeSample(index));
    const first = (await client.batch(0, 2))!;
    const second = (await client.batch(1, 2, 0, [first.batchId]))!; // first is being trained: it stays out
    expect(store.counts()).toMatchObject({ ready: 2, delivered: 4 });
    const third = (await client.batch(2, 2, 0, [second.batchId]))!; // first is not named any more (as if its answer was lost): back to ready, out again
    expect(store.counts()).toMatchObject({ ready: 2, delivered: 4 });
    expect(third.samples.map((sample) => sample.id)).toEqual(first.samples.map((sample) => sample.id));
    expect(await client.ack(1, second.batchId)).toBe(200);
    expect(await client.ack(2, third.batchId)).toBe(200);
    expect(store.counts()).toMatchObject({ ready: 2, delivered: 0, acknowledged: 4 });
    // the batch given back was said on the bus, with the store's count after it
    expect(bus.recent().filter((event) => event.type === "batch-released")).toMatchObject([{ batchId: first.batchId, size: 2, ready: 4 }]);
  });

  it("says when a batch's worth waits, held back by the per-session share (batch-held), and not when too few are ready", async () => {
    const sharedDir = await mkdtemp(join(tmpdir(), "openclaw-bridge-share-"));
    const shared = await SampleStore.open(join(sharedDir, "store"), {
      staleness: new StalenessPolicy(new WeightVersionTracker(), 2),
      fairBatch: { maxSessionShare: 0.25, relaxAfterMs: 600_000 },
    });
    const sharedBus = new EventBus();
    const server = new BridgeServer({ store: shared, bus: sharedBus, recordsDir: sharedDir });
    const address = await server.start({ host: "127.0.0.1", port: 0 });
    try {
      const client = new TestBridgeClient(address.url, address.token);
      for (let index = 0; index < 2; index++) await shared.put({ ...makeSample(index), id: `one:${index}`, sessionId: "one" });
      await shared.put({ ...makeSample(2), id: "two:2", sessionId: "two" });
      expect(await client.batch(0, 4, 0)).toBeNull(); // 3 of 4: too few, nothing held
      await shared.put({ ...makeSample(3), id: "one:3", sessionId: "one" });
      expect(await client.batch(0, 4, 0)).toBeNull(); // 4 ready, 3 of session one's beside 1 of two's: at most 2 of one's per batch
      expect(sharedBus.recent().map((event) => event.type)).toEqual(["batch-held"]);
      expect(sharedBus.recent()[0]).toMatchObject({ ready: 4, size: 4, activeSessions: 2, perSession: 2 });
    } finally {
      await server.close();
      await shared.close();
    }
  });

  it("puts teacher fields on every sample or none", async () => {
    const client = new TestBridgeClient(endpoint.url, endpoint.token);
    await store.put(makeSample(0, { teacher: true, topk: 2 }));
    await store.put(makeSample(1));
    await store.put(makeSample(2, { teacher: true, topk: 2 }));
    const batch = (await client.batch(0, 3))!;
    expect(batch.filled).toEqual({ teacherFromRollout: 1, topkOmitted: 2 });
    for (const sample of batch.samples) {
      expect(sample.blocks.teacherLogProbs).toBeDefined();
      expect(sample.blocks.teacherTopkLogProbs).toBeUndefined();
    }
    expect(batch.samples[1]!.blocks.teacherLogProbs).toEqual(batch.samples[1]!.blocks.rolloutLogProbs);
  });
});
