// Fair batches: no session holds more than its share of a batch, a share that fits the sessions with a sample ready
// (one user alone is never held back); what is held back waits, in order, for a later batch (never dropped by the
// share, still dropped by the staleness rule); a run with too few sessions still trains. Episode steps share by task
// group, and a small episode run trains at once.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { composeBatch, sessionCap, type BatchCandidate } from "../../orchestrator/store/batch-composition.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { decodeSample } from "../../orchestrator/store/sample-frame.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { makeSample } from "../bridge/sample-factory.ts";

const RULE = { maxSessionShare: 0.25, relaxAfterMs: 60_000 };

describe("composeBatch", () => {
  const candidate = (seq: number, unit: string, readyAt = 0): BatchCandidate => ({ seq, unit, readyAt });
  const step = (seq: number, group: string, readyAt = 0): BatchCandidate => ({ seq, unit: group, episodeGroup: true, readyAt });

  it("caps a session at a quarter of the batch once four sessions are active, an equal part with fewer, at least one sample", () => {
    expect(sessionCap(16, 0.25, 4)).toBe(4);
    expect(sessionCap(16, 0.25, 7)).toBe(4);
    expect(sessionCap(3, 0.25, 5)).toBe(1);
    expect(sessionCap(16, 1, 9)).toBe(16);
    expect(sessionCap(16, 0.25, 1)).toBe(16); // one user alone: the whole batch
    expect(sessionCap(16, 0.25, 2)).toBe(8);
    expect(sessionCap(16, 0.25, 3)).toBe(6);
    expect(sessionCap(4, 0.25, 3)).toBe(2);
  });

  it("one session alone fills a batch at once, two split it, however small the configured share", () => {
    const alone = [candidate(1, "a"), candidate(2, "a"), candidate(3, "a"), candidate(4, "a"), candidate(5, "a")];
    expect(composeBatch(alone, 4, RULE, 0)).toEqual({ seqs: [1, 2, 3, 4], heldBack: 0, relaxed: false, sessions: 1, largestSession: 4, activeSessions: 1, perSession: 4 });
    const two = [candidate(1, "a"), candidate(2, "a"), candidate(3, "a"), candidate(4, "b"), candidate(5, "b")];
    expect(composeBatch(two, 4, RULE, 0)).toEqual({ seqs: [1, 2, 4, 5], heldBack: 1, relaxed: false, sessions: 2, largestSession: 2, activeSessions: 2, perSession: 2 });
  });

  it("takes the oldest samples, skipping those of a session at its cap, in order", () => {
    const candidates = [candidate(1, "a"), candidate(2, "a"), candidate(3, "b"), candidate(4, "a"), candidate(5, "c"), candidate(6, "d")];
    expect(composeBatch(candidates, 4, RULE, 0)).toEqual({ seqs: [1, 3, 5, 6], heldBack: 2, relaxed: false, sessions: 4, largestSession: 1, activeSessions: 4, perSession: 1 });
  });

  it("takes a sample on its last chance before the staleness rule drops it, whatever its session's share", () => {
    const candidates = [candidate(1, "a"), candidate(2, "a"), { ...candidate(3, "a"), lastChance: true }, candidate(4, "b"), candidate(5, "c"), candidate(6, "d")];
    expect(composeBatch(candidates, 4, RULE, 0)).toEqual({ seqs: [3, 4, 5, 6], heldBack: 2, relaxed: false, sessions: 4, largestSession: 1, activeSessions: 4, perSession: 1 }); // (3 took a's one place)
  });

  it("waits (null) when the share leaves the batch short (a chatty session beside a quiet one), then completes it with the oldest held-back samples", () => {
    const candidates = [candidate(1, "a", 0), candidate(2, "a", 0), candidate(3, "a", 1000), candidate(4, "b", 0)];
    expect(composeBatch(candidates, 4, RULE, 60_999)).toBeNull(); // (3 is held back: a holds 2 of 4 beside b)
    expect(composeBatch(candidates, 4, RULE, 61_000)).toMatchObject({ seqs: [1, 2, 3, 4], relaxed: true, heldBack: 0, largestSession: 3 });
    expect(composeBatch(candidates.slice(0, 3), 4, RULE, 1e9)).toBeNull(); // fewer ready than the batch: never
  });

  it("task groups: interleaved while several are ready, and one group alone fills the batch at once", () => {
    const twoGroups = [step(1, "g1"), step(2, "g1"), step(3, "g1"), step(4, "g1"), step(5, "g1"), step(6, "g2"), step(7, "g2"), step(8, "g2")];
    expect(composeBatch(twoGroups, 4, { ...RULE, maxSessionShare: 0.5 }, 0)).toEqual({ seqs: [1, 2, 6, 7], heldBack: 3, relaxed: false, sessions: 2, largestSession: 2, activeSessions: 2, perSession: 2 });
    const oneGroup = twoGroups.slice(0, 5);
    expect(composeBatch(oneGroup, 4, RULE, 0)).toEqual({ seqs: [1, 2, 3, 4], heldBack: 0, relaxed: false, sessions: 1, largestSession: 4, activeSessions: 1, perSession: 4 }); // (5 waits on)
    // groups of unequal size: the short group's place is completed at once with the other's steps
    const unequal = [step(1, "g1"), step(2, "g1"), step(3, "g1"), step(4, "g1"), step(5, "g2")];
    expect(composeBatch(unequal, 4, RULE, 0)).toMatchObject({ seqs: [1, 2, 3, 5], relaxed: true, activeSessions: 2, perSession: 2 });
    // chat sessions in the same places wait relax_after_s
    expect(composeBatch(unequal.map((each) => ({ ...each, episodeGroup: false })), 4, RULE, 0)).toBeNull();
  });
});

let dir: string;
let store: SampleStore | null = null;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "openclaw-fair-"));
});
afterEach(async () => {
  await store?.close();
  store = null;
});

function sessionSample(index: number, sessionId: string, weightVersion = "1") {
  return { ...makeSample(index, { weightVersion }), id: `${sessionId}:${index}`, sessionId, turn: index };
}

/** The arrival order of the issue: one looping session answering three times for every turn of the others. */
function chattyRun(count: number, from = 0): Array<ReturnType<typeof sessionSample>> {
  return Array.from({ length: count }, (_, offset) => {
    const index = from + offset;
    return sessionSample(index, index % 3 === 2 ? `user-${Math.floor(index / 3) % 6}` : "looping");
  });
}

function sessionsOf(frames: Buffer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const frame of frames) {
    const { sessionId } = decodeSample(frame).sample;
    counts[sessionId] = (counts[sessionId] ?? 0) + 1;
  }
  return counts;
}

describe("SampleStore with a session share", () => {
  it("one chatty session: 4 of 16 per batch, the rest delivered later in order, none lost", async () => {
    const versions = new WeightVersionTracker(1);
    store = await SampleStore.open(dir, { staleness: new StalenessPolicy(versions, 2), fairBatch: RULE });
    for (const sample of chattyRun(48)) await store.put(sample); // 32 looping, 16 from six users
    const first = (await store.deliver(16, 0))!;
    console.log("batch 1:", JSON.stringify(sessionsOf(first.frames)), JSON.stringify(first.composition));
    expect(sessionsOf(first.frames).looping).toBe(4);
    expect(first.composition).toEqual({ sessions: 7, largestSession: 4, heldBack: 20, relaxed: false, activeSessions: 7, perSession: 4 }); // looping samples older than the batch's newest
    // without the share it would have been the 16 oldest: 11 of them from the looping session
    expect(chattyRun(16).filter((sample) => sample.sessionId === "looping")).toHaveLength(11);

    expect(store.share(16)).toEqual({ activeSessions: 5, perSession: 4 });
    expect(await store.deliver(16, 1)).toBeNull(); // 4 users' samples left: the looping session cannot fill the rest
    for (const sample of chattyRun(30, 48).filter((sample) => sample.sessionId !== "looping")) await store.put(sample);
    const second = (await store.deliver(16, 1))!;
    console.log("batch 2:", JSON.stringify(sessionsOf(second.frames)), JSON.stringify(second.composition));
    expect(sessionsOf(second.frames).looping).toBe(4);
    const looping = (frames: Buffer[]) => frames.map((frame) => decodeSample(frame).sample).filter((sample) => sample.sessionId === "looping").map((sample) => sample.turn);
    expect([...looping(first.frames), ...looping(second.frames)]).toEqual(chattyRun(48).filter((sample) => sample.sessionId === "looping").slice(0, 8).map((sample) => sample.turn));
    const delivered = first.seqs.length + second.seqs.length;
    expect(store.counts()).toMatchObject({ delivered, ready: 48 + 10 - delivered, droppedStale: 0 });
  });

  it("a partial batch (training.max_wait_s) is the largest the share allows from what is ready, never none", async () => {
    store = await SampleStore.open(dir, { staleness: new StalenessPolicy(new WeightVersionTracker(1), 2), fairBatch: RULE });
    expect(await store.deliverPartial(8, 0)).toBeNull(); // nothing ready
    for (let index = 0; index < 6; index++) await store.put(sessionSample(index, "looping"));
    await store.put(sessionSample(6, "user-6"));
    expect(await store.deliver(7, 0)).toBeNull(); // all seven would give the looping session more than its share
    const partial = (await store.deliverPartial(8, 0))!;
    expect(sessionsOf(partial.frames)).toEqual({ looping: 2, "user-6": 1 }); // 3: at 4 or more the share holds too much back
    expect(store.counts()).toMatchObject({ ready: 4, delivered: 3 });
  });

  it("a held-back sample is still judged by the staleness rule: dropped and counted once too old, never delivered", async () => {
    const versions = new WeightVersionTracker(1);
    store = await SampleStore.open(dir, { staleness: new StalenessPolicy(versions, 2), fairBatch: RULE });
    for (let index = 0; index < 6; index++) await store.put(sessionSample(index, "looping", "1"));
    for (let index = 6; index < 9; index++) await store.put(sessionSample(index, `user-${index}`, "4"));
    versions.observe("4"); // version 1 is now 3 behind (max_staleness 2)
    const batch = await store.deliver(4, 0);
    expect(batch).toBeNull();
    expect(store.counts()).toMatchObject({ ready: 3, droppedStale: 6 });
  });

  it("a sample held back until one more version would make it stale goes out then, beyond its session's share", async () => {
    const versions = new WeightVersionTracker(2);
    store = await SampleStore.open(dir, { staleness: new StalenessPolicy(versions, 2), fairBatch: RULE });
    for (let index = 0; index < 3; index++) await store.put(sessionSample(index, "looping", "2"));
    for (let index = 3; index < 9; index++) await store.put(sessionSample(index, `user-${index}`, "4"));
    versions.observe("4"); // the looping session's samples are 2 versions behind: the next version would drop them
    const batch = (await store.deliver(4, 0))!;
    expect(sessionsOf(batch.frames)).toEqual({ looping: 3, "user-3": 1 });
    expect(store.counts()).toMatchObject({ ready: 5, droppedStale: 0 });
  });

  it("a small episode run (one task group of two episodes, fewer than the share wants units) trains without waiting", async () => {
    store = await SampleStore.open(dir, { staleness: new StalenessPolicy(new WeightVersionTracker(1), 2), fairBatch: { maxSessionShare: 0.25, relaxAfterMs: 300_000 } });
    for (let index = 0; index < 6; index++) {
      const episode = index % 2;
      await store.put({ ...makeSample(index, { weightVersion: "1" }), id: `t:run:0:${episode}:${index}`, sessionId: `t:run:0:${episode}`, episode: { episodeId: `t:run:0:${episode}`, groupId: "t:run:0", stepIndex: index >> 1, stepScore: null, outcome: 1 } });
    }
    const batch = (await store.deliver(4, 0))!;
    expect(batch.composition).toEqual({ sessions: 1, largestSession: 4, heldBack: 0, relaxed: false, activeSessions: 1, perSession: 4 }); // (4, 5 wait on)
    expect(batch.frames.map((frame) => decodeSample(frame).sample.turn)).toEqual([0, 1, 2, 3]);
  });

  it("one user alone: batch after batch as soon as a batch's worth is ready, none held back", async () => {
    store = await SampleStore.open(dir, { staleness: new StalenessPolicy(new WeightVersionTracker(1), 2), fairBatch: { maxSessionShare: 0.25, relaxAfterMs: 300_000 } });
    for (let index = 0; index < 8; index++) await store.put(sessionSample(index, "only-user"));
    const first = (await store.deliver(4, 0))!;
    const second = (await store.deliver(4, 1))!;
    expect([first.composition, second.composition]).toEqual([0, 1].map(() => ({ sessions: 1, largestSession: 4, heldBack: 0, relaxed: false, activeSessions: 1, perSession: 4 })));
    expect([...first.frames, ...second.frames].map((frame) => decodeSample(frame).sample.turn)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("waits for a batch the share can make instead of answering at once (no busy loop), and relaxes after relax_after_s", async () => {
    store = await SampleStore.open(dir, { staleness: new StalenessPolicy(new WeightVersionTracker(1), 2), fairBatch: { maxSessionShare: 0.25, relaxAfterMs: 400 } });
    for (let index = 0; index < 7; index++) await store.put(sessionSample(index, "chatty"));
    await store.put(sessionSample(7, "quiet"));
    expect(store.share(4)).toEqual({ activeSessions: 2, perSession: 2 });
    const started = Date.now();
    await store.waitForReady(4, 150);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(await store.deliver(4, 0)).toBeNull(); // chatty 2 + quiet 1: one short
    await new Promise((resolve) => setTimeout(resolve, 400));
    const relaxed = (await store.deliver(4, 0))!;
    expect(relaxed.composition).toEqual({ sessions: 2, largestSession: 3, heldBack: 4, relaxed: true, activeSessions: 2, perSession: 2 }); // (3, 4, 5, 6 wait on)
    expect(relaxed.frames.map((frame) => decodeSample(frame).sample.turn)).toEqual([0, 1, 2, 7]);
  });
});
