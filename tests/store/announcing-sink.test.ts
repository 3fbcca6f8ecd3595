// The sink the orchestrator gives judging (orchestrator/sinks/announcing-sink.ts) over a real SampleStore:
// sample-ready only for a sample stored now, nothing for the same sample put again, and an error event naming the
// id for a different sample under a stored id (whose put fails), and batch-held with the sessions over the share as
// soon as the sample that makes a batch's worth is stored, not only once the trainer has waited.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { announceSamples } from "../../orchestrator/sinks/announcing-sink.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { makeSample } from "../bridge/sample-factory.ts";

let store: SampleStore | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
});

describe("announcing sink", () => {
  it("announces a stored sample once, and a duplicate id with other content as an error naming the id", async () => {
    store = await SampleStore.open(join(await mkdtemp(join(tmpdir(), "openclaw-announce-")), "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(), 2) });
    const bus = new EventBus();
    const sink = announceSamples(store, bus, 4, () => store!.counts().ready);
    expect(await sink.put(makeSample(3))).toBe("stored");
    expect(await sink.put(makeSample(3))).toBe("already-stored");
    await expect(sink.put({ ...makeSample(3), reward: 0.25 })).rejects.toMatchObject({ code: "SAMPLE_DUPLICATE" });
    const events = bus.recent().map(({ at: _at, ...event }) => event);
    expect(events).toEqual([
      { type: "sample-ready", sampleId: "session-3:3", sessionId: "session-3", turn: 3, kind: "rl", reward: 1, ready: 1, batchSize: 4 },
      { type: "error", source: "store", code: "SAMPLE_DUPLICATE", message: expect.stringContaining("sample session-3:3 was not stored: another sample with that id is stored already") },
    ]);
  });

  it("says a batch's worth held back by the share as the sample that makes it is stored: who is over, and when it trains", async () => {
    const rule = { maxSessionShare: 0.25, relaxAfterMs: 300_000 };
    store = await SampleStore.open(join(await mkdtemp(join(tmpdir(), "openclaw-announce-")), "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(1), 2), fairBatch: rule });
    const bus = new EventBus();
    const sink = announceSamples(store, bus, 4, () => store!.counts().ready, () => store!.held(4));
    const sample = (index: number, sessionId: string) => ({ ...makeSample(index, { weightVersion: "1" }), id: `${sessionId}:${index}`, sessionId, turn: index });
    const before = Date.now();
    // the tryout's demo: three of one conversation's turns and one of another's, at batch 4
    for (const [index, session] of ["talker", "talker", "other", "talker"].entries()) await sink.put(sample(index, session));
    const held = bus.recent().filter((event) => event.type === "batch-held");
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ ready: 4, size: 4, activeSessions: 2, perSession: 2, sessions: [{ unit: "talker", ready: 3 }] });
    expect(held[0]!.type === "batch-held" && held[0]!.completesAt).toBeGreaterThanOrEqual(before + rule.relaxAfterMs);
    expect(store.held(4)).not.toBeNull();
    // a fifth sample of another session makes the batch: nothing held
    await sink.put(sample(4, "third"));
    expect(store.held(4)).toBeNull();
    expect(bus.recent().filter((event) => event.type === "batch-held")).toHaveLength(1);
  });
});
