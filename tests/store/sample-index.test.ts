// SampleIndex: the states a sample moves through (ready → delivered → acknowledged / dropped, and back to ready),
// the counts they keep, the oldest ready sample, and segments that are finished and forgotten.
import { describe, expect, it } from "vitest";
import { SampleIndex, type Entry } from "../../orchestrator/store/sample-index.ts";

const entry = (seq: number, segment: number, readyAt = 1000 + seq): Entry => ({
  seq,
  id: `s:${seq}`,
  unit: { unit: "session:s" },
  readyAt,
  location: { segment, offset: seq * 10, length: 10 },
  state: "ready",
  weightVersions: ["0"],
});

describe("SampleIndex", () => {
  it("counts each move once: delivered, back to ready, acknowledged, dropped", () => {
    const index = new SampleIndex();
    for (const seq of [0, 1, 2, 3]) index.add(entry(seq, 0));
    index.add({ ...entry(4, 0), state: "acknowledged" });
    expect([index.readyCount, index.deliveredCount]).toEqual([4, 0]);
    expect(index.markDelivered([0, 1, 4])).toBe(2); // an acknowledged one is not delivered again
    expect(index.markDelivered([0])).toBe(0);
    expect([index.readyCount, index.deliveredCount]).toEqual([2, 2]);
    index.backToReady([1, 2]); // 2 was never out
    expect([index.readyCount, index.deliveredCount]).toEqual([3, 1]);
    index.markAcknowledged([0, 3]); // 3 is ready, not delivered
    expect([index.readyCount, index.deliveredCount, index.get(0)!.state, index.get(3)!.state]).toEqual([3, 0, "acknowledged", "ready"]);
    index.markDropped(index.get(3)!);
    index.markDropped(index.get(0)!); // acknowledged stays acknowledged
    expect([index.readyCount, index.get(3)!.state, index.get(0)!.state]).toEqual([2, "dropped", "acknowledged"]);
    expect(index.ready().map((ready) => ready.seq)).toEqual([1, 2]);
  });

  it("finds the oldest ready sample by when it became ready, not by seq", () => {
    const index = new SampleIndex();
    expect(index.oldestReadyAt()).toBeNull();
    index.add(entry(0, 0, 500));
    index.add(entry(1, 0, 300));
    index.add({ ...entry(2, 0, 100), state: "dropped" });
    expect(index.oldestReadyAt()).toBe(300);
    index.markDelivered([1]);
    expect(index.oldestReadyAt()).toBe(500);
  });

  it("calls a segment finished when none of its samples is ready or out, the active one aside, and forgets it", () => {
    const index = new SampleIndex();
    index.add({ ...entry(0, 0), state: "acknowledged" });
    index.add({ ...entry(1, 0), state: "dropped" });
    index.add(entry(2, 1));
    index.add({ ...entry(3, 2), state: "acknowledged" });
    index.add({ ...entry(4, 3), state: "acknowledged" });
    index.markDelivered([2]);
    expect(index.finishedSegments(3)).toEqual([0, 2]);
    index.forgetSegment(0);
    expect([index.get(0), index.seqOf("s:1"), [...index.seqs()]]).toEqual([undefined, undefined, [2, 3, 4]]);
    expect(index.seqOf("s:2")).toBe(2);
  });
});
