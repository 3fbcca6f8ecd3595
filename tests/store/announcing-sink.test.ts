// The sink the orchestrator gives judging (orchestrator/sinks/announcing-sink.ts) over a real SampleStore:
// sample-ready only for a sample stored now, nothing for the same sample put again, and an error event naming the
// id for a different sample under a stored id (whose put fails).
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
});
