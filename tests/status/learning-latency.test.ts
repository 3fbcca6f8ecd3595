// The learning-latency fold (orchestrator/status/learning-latency.ts): each trained sample's five waits, served at
// the first update after its acknowledgement (or at the acknowledgement when an update ended since its hand-out, as
// slime's rollout function acknowledges), median and p90 over the last N, and batches given back or unknown and an
// earlier run's samples ignored.
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../contracts/events.ts";
import { LearningLatency, spread } from "../../orchestrator/status/learning-latency.ts";

const counts = { positive: 1, zero: 0, negative: 0 };
const delivered = (at: number, batchId: string, stages: Array<[number, number, number]>): RunEvent => ({
  at, type: "batch-delivered", rolloutId: 0, batchId, size: stages.length, meanReward: 1, evalScore: null, counts,
  stages: stages.map(([answeredAt, closedAt, judgedAt]) => ({ answeredAt, closedAt, judgedAt })),
});
const acked = (at: number, batchId: string): RunEvent => ({ at, type: "batch-acknowledged", rolloutId: 0, batchId });
const updated = (at: number, toVersion: string): RunEvent => ({ at, type: "weights-update-end", toVersion, durationMs: 5 });

describe("learning latency", () => {
  it("a batch acknowledged before any update is served at the next update", () => {
    const latency = new LearningLatency();
    latency.apply(delivered(1_000, "b0", [[100, 300, 600]]));
    latency.apply(acked(3_000, "b0"));
    expect(latency.counts()).toMatchObject({ samples: 0, awaitingServe: 1, lastServedUpdateAt: null });
    latency.apply(updated(4_500, "1"));
    const { stages, samples, awaitingServe, lastServedUpdateAt } = latency.counts();
    expect({ samples, awaitingServe, lastServedUpdateAt }).toEqual({ samples: 1, awaitingServe: 0, lastServedUpdateAt: 4_500 });
    expect(stages).toEqual({
      closed: { median: 200, p90: 200 },
      judged: { median: 300, p90: 300 },
      handed: { median: 400, p90: 400 },
      trained: { median: 2_000, p90: 2_000 },
      served: { median: 1_500, p90: 1_500 },
      total: { median: 4_400, p90: 4_400 },
    });
  });

  it("slime's order: an update ended between hand-out and acknowledgement, so it is served at the acknowledgement", () => {
    const latency = new LearningLatency();
    latency.apply(delivered(1_000, "b0", [[0, 10, 20]]));
    latency.apply(updated(2_000, "2"));
    latency.apply(acked(5_000, "b0"));
    expect(latency.counts().stages.served).toEqual({ median: 0, p90: 0 });
    expect(latency.counts().stages.total).toEqual({ median: 5_000, p90: 5_000 });
  });

  it("a batch handed out again keeps its first hand-out; a released or unknown batch counts nothing", () => {
    const latency = new LearningLatency();
    latency.apply(delivered(1_000, "b0", [[0, 0, 0]]));
    latency.apply(delivered(9_000, "b0", [[0, 0, 0]]));
    latency.apply(delivered(1_000, "b1", [[0, 0, 0]]));
    latency.apply({ at: 1_500, type: "batch-released", batchId: "b1", size: 1, ready: 1 });
    latency.apply(acked(2_000, "b1"));
    latency.apply(acked(2_000, "never-seen"));
    latency.apply(acked(3_000, "b0"));
    latency.apply(updated(3_000, "1"));
    expect(latency.counts()).toMatchObject({ samples: 1, stages: { handed: { median: 1_000 }, trained: { median: 2_000 } } });
  });

  it("keeps the last `window` samples, and skips batches whose samples recorded no moments", () => {
    const latency = new LearningLatency(3);
    for (let index = 0; index < 5; index++) {
      latency.apply(delivered(index * 100, `b${index}`, [[0, index, index]]));
      latency.apply(acked(index * 100 + 50, `b${index}`));
      latency.apply(updated(index * 100 + 60, String(index + 1)));
    }
    latency.apply(delivered(1_000, "old", []));
    latency.apply(acked(1_100, "old"));
    latency.apply(updated(1_200, "9"));
    expect(latency.counts()).toMatchObject({ samples: 3, window: 3, stages: { closed: { median: 3, p90: 4 } }, lastServedUpdateAt: 1_200 });
  });

  it("counts only samples judged after this run opened the store: an earlier run's, handed out now, count nothing", () => {
    const latency = new LearningLatency();
    latency.apply({ at: 500_000, type: "store-opened", ready: 1, outstanding: [], acknowledged: 20, droppedStale: 0 });
    latency.apply(delivered(501_000, "b0", [[10, 20, 30], [500_100, 500_200, 500_300]]));
    latency.apply(acked(502_000, "b0"));
    latency.apply(updated(502_000, "1"));
    expect(latency.counts()).toMatchObject({ samples: 1, stages: { handed: { median: 700 }, total: { median: 1_900 } } });
  });

  it("spreads by nearest rank", () => {
    expect(spread([])).toBeNull();
    expect(spread([5])).toEqual({ median: 5, p90: 5 });
    expect(spread([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])).toEqual({ median: 5, p90: 9 });
  });
});
