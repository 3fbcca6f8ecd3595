// SampleStore in-process: durability across reopen, ack / release semantics, torn tails, compaction,
// staleness drops, idempotent and invalid puts.
import { appendFile, mkdtemp, readdir, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { decodeSample } from "../../orchestrator/store/sample-frame.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { makeSample } from "../bridge/sample-factory.ts";

let dir: string;
const opened: SampleStore[] = [];
async function openStore(options: Partial<Parameters<typeof SampleStore.open>[1]> = {}): Promise<SampleStore> {
  const store = await SampleStore.open(dir, { staleness: new StalenessPolicy(new WeightVersionTracker(), 2), ...options });
  opened.push(store);
  return store;
}
const idsOf = (frames: Buffer[]) => frames.map((frame) => decodeSample(frame).sample.id);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "openclaw-store-"));
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

describe("SampleStore", () => {
  it("keeps samples across a reopen and round-trips every field", async () => {
    const store = await openStore();
    const sample = makeSample(7, { teacher: true, topk: 3, responseLength: 4 });
    await store.put(sample);
    await store.close();
    const reopened = await openStore();
    expect(reopened.counts()).toEqual({ ready: 1, delivered: 0, acknowledged: 0, droppedStale: 0 });
    const batch = await reopened.deliver(1, 0);
    const decoded = decodeSample(batch!.frames[0]!).sample;
    expect(decoded).toEqual(sample); // factory values are exact in float32
  });

  it("hands a released batch out again, keeps an outstanding one out across a reopen, acknowledged ones never", async () => {
    const store = await openStore();
    for (let index = 0; index < 6; index++) await store.put(makeSample(index));
    const first = (await store.deliver(2, 0))!;
    const second = (await store.deliver(2, 1))!;
    expect(await store.deliver(3, 2)).toBeNull(); // only 2 ready
    expect(store.counts()).toMatchObject({ ready: 2, delivered: 4 });
    expect(await store.acknowledge(first.batchId)).toMatchObject({ already: false });
    expect(await store.acknowledge(first.batchId)).toMatchObject({ already: true });
    expect(await store.release(second.batchId)).toBe(true);
    expect(await store.release(second.batchId)).toBe(false);
    expect(store.counts()).toMatchObject({ ready: 4, delivered: 0, acknowledged: 2 });
    const third = (await store.deliver(2, 2))!;
    expect(idsOf(third.frames)).toEqual(idsOf(second.frames)); // oldest first: the released ones come back
    await store.close();
    const reopened = await openStore();
    // the hand-out of `third` was recorded before it left: still out after the restart, under the same id
    expect(reopened.counts()).toEqual({ ready: 2, delivered: 2, acknowledged: 2, droppedStale: 0 });
    expect(reopened.outstanding()).toEqual([{ batchId: third.batchId, rolloutId: 2, session: "", size: 2 }]);
    const again = (await reopened.handOutAgain(third.batchId, "after-restart"))!;
    expect(idsOf(again.frames)).toEqual(idsOf(third.frames));
    expect(await reopened.acknowledge(first.batchId)).toMatchObject({ already: true });
    expect(await reopened.acknowledge(third.batchId)).toMatchObject({ already: false });
    const rest = (await reopened.deliver(2, 3))!;
    expect([...idsOf(first.frames), ...idsOf(third.frames), ...idsOf(rest.frames)].sort()).toEqual(Array.from({ length: 6 }, (_, index) => `session-${index}:${index}`).sort());
    expect(await reopened.deliver(1, 4)).toBeNull();
  });

  it("a retried ack that comes while the first is still being written waits for it and answers already", async () => {
    const store = await openStore();
    for (let index = 0; index < 2; index++) await store.put(makeSample(index));
    const batch = (await store.deliver(2, 0))!;
    const [first, retry] = await Promise.all([store.acknowledge(batch.batchId), store.acknowledge(batch.batchId)]);
    expect(first).toMatchObject({ already: false });
    expect(retry).toMatchObject({ already: true, seqs: batch.seqs });
    expect(store.counts()).toMatchObject({ delivered: 0, acknowledged: 2 });
  });

  it("tolerates a torn last record and a torn last ack line", async () => {
    const store = await openStore();
    for (let index = 0; index < 3; index++) await store.put(makeSample(index));
    const batch = (await store.deliver(1, 0))!;
    await store.acknowledge(batch.batchId);
    await store.close();
    const segment = (await readdir(dir)).find((name) => name.endsWith(".seg"))!;
    await appendFile(join(dir, segment), Buffer.from([200, 1, 0, 0, 9, 9, 9])); // a record header cut short
    await appendFile(join(dir, "acks.log"), '{"t":"ack","batch":"x","rol');
    const reopened = await openStore();
    expect(reopened.counts()).toEqual({ ready: 2, delivered: 0, acknowledged: 1, droppedStale: 0 });
    expect(reopened.recovery.tornBytes).toBeGreaterThan(0);
    await reopened.put(makeSample(9));
    await reopened.close();
    expect((await openStore()).counts().ready).toBe(3);
  });

  it("deletes segments once all their samples are acknowledged (bounded disk use)", async () => {
    const store = await openStore({ segmentBytes: 2048 });
    for (let index = 0; index < 40; index++) await store.put(makeSample(index, { responseLength: 50 }));
    const segmentsBefore = (await readdir(dir)).filter((name) => name.endsWith(".seg")).length;
    expect(segmentsBefore).toBeGreaterThan(5);
    for (let round = 0; round < 8; round++) {
      const batch = (await store.deliver(5, round))!;
      await store.acknowledge(batch.batchId);
    }
    const segmentsAfter = (await readdir(dir)).filter((name) => name.endsWith(".seg")).length;
    expect(segmentsAfter).toBe(1);
    expect((await stat(join(dir, "acks.log"))).size).toBeLessThan(2048);
    await store.put(makeSample(100));
    await store.close();
    const reopened = await openStore({ segmentBytes: 2048 });
    expect(reopened.counts()).toEqual({ ready: 1, delivered: 0, acknowledged: 40, droppedStale: 0 });
    const next = (await reopened.deliver(1, 9))!;
    expect(decodeSample(next.frames[0]!).seq).toBe(41); // sequence numbers survive compaction
  });

  it("drops samples older than max_staleness versions, records and announces them", async () => {
    const tracker = new WeightVersionTracker();
    const store = await openStore({ staleness: new StalenessPolicy(tracker, 1) });
    const dropped: string[] = [];
    store.onDropped((item) => dropped.push(item.id));
    await store.put(makeSample(0, { weightVersion: "default" }));
    await store.put(makeSample(1, { weightVersion: "1" }));
    await store.put(makeSample(2, { weightVersion: "2" }));
    tracker.observe("1");
    expect(await store.deliver(3, 0)).not.toBeNull(); // 0 is 1 behind: still fine
    tracker.observe("3");
    tracker.observe("2"); // a late answer never moves the version back
    expect(tracker.current()).toBe(3);
    await store.put(makeSample(3, { weightVersion: "1" }));
    await store.put(makeSample(4, { weightVersion: "3" }));
    expect(await store.deliver(1, 1)).not.toBeNull();
    expect(dropped).toEqual(["session-3:3"]);
    expect(store.counts().droppedStale).toBe(1);
  });

  it("after slime restarts (versions from 0 again, tracker reset) new samples are delivered, not dropped as stale", async () => {
    const tracker = new WeightVersionTracker();
    const store = await openStore({ staleness: new StalenessPolicy(tracker, 2) });
    tracker.observe("40");
    tracker.reset(); // the bridge saw a new rollout-function session: slime started again
    tracker.observe("default");
    tracker.observe("1");
    expect(tracker.current()).toBe(1);
    for (let index = 0; index < 4; index++) await store.put(makeSample(index, { weightVersion: "1" }));
    const batch = await store.deliver(4, 0);
    expect(batch?.seqs).toHaveLength(4);
    expect(store.counts()).toMatchObject({ delivered: 4, droppedStale: 0 });
    tracker.observe("0"); // observed versions alone never move it back
    expect(tracker.current()).toBe(1);
  });

  it("accepts a sample id once and rejects a malformed sample without changing state", async () => {
    const store = await openStore();
    expect(await Promise.all([store.put(makeSample(1)), store.put(makeSample(1))])).toEqual(["stored", "already-stored"]);
    expect(await store.put(makeSample(1))).toBe("already-stored");
    expect(store.counts().ready).toBe(1);
    const bad = { ...makeSample(2), lossMask: [1] };
    await expect(store.put(bad)).rejects.toBeInstanceOf(OpenclawRlError);
    expect(store.counts().ready).toBe(1);
  });

  it("refuses a different sample under a stored id (never silently dropped), also while the first is being written", async () => {
    const store = await openStore();
    const other = { ...makeSample(1), reward: 0.5, why: "another turn that got the same number" };
    const [first, racing] = await Promise.allSettled([store.put(makeSample(1)), store.put(other)]);
    expect(first).toEqual({ status: "fulfilled", value: "stored" });
    expect(racing).toMatchObject({ status: "rejected", reason: { code: "SAMPLE_DUPLICATE", path: "session-1:1", message: expect.stringContaining("sample session-1:1 was not stored") } });
    await expect(store.put(other)).rejects.toMatchObject({ code: "SAMPLE_DUPLICATE" });
    await store.close();
    const reopened = await openStore(); // the stored one is known after a restart too
    expect(await reopened.put(makeSample(1))).toBe("already-stored");
    await expect(reopened.put(other)).rejects.toMatchObject({ code: "SAMPLE_DUPLICATE" });
    expect(reopened.counts().ready).toBe(1);
    const batch = (await reopened.deliver(1, 0))!;
    expect(decodeSample(batch.frames[0]!).sample).toMatchObject({ reward: makeSample(1).reward });
  });
});
