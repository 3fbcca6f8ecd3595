// A sink wrapped so the bus hears of each stored sample: sample-ready (with the count toward the next batch) for a
// sample written now, then batch-held when a batch's worth is ready but held back by the per-session share; nothing
// for one stored before; an error event naming the id for a different sample under a stored id (and the put fails,
// so judging does not count a sample that is not there).
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { RunEventInput } from "../../contracts/events.ts";
import type { PutOutcome, SampleSink } from "../../contracts/sample-sink.ts";
import type { EventBus } from "../event-bus.ts";

/** Why a batch's worth makes no batch, as batch-held says it (the store's SampleStore.held). */
type HeldBatch = Omit<Extract<RunEventInput, { type: "batch-held" }>, "type" | "ready" | "size">;

/**
 * `readyCount`: the store's ready count; null for a sink without one (JSONL: counted here, modulo the batch size).
 * `held`: why a batch's worth ready makes no batch (the store's per-session share), said with the sample at once.
 */
export function announceSamples(sink: SampleSink, bus: EventBus, batchSize: number, readyCount: () => number | null, held: () => HeldBatch | null = () => null): SampleSink {
  let written = 0;
  return {
    async put(sample) {
      let outcome: PutOutcome;
      try {
        outcome = await sink.put(sample);
      } catch (error) {
        if (error instanceof OpenclawRlError && error.code === "SAMPLE_DUPLICATE") bus.emit({ type: "error", source: "store", code: error.code, message: error.message });
        throw error;
      }
      if (outcome !== "stored") return outcome;
      written += 1;
      const ready = readyCount() ?? written % batchSize;
      bus.emit({ type: "sample-ready", sampleId: sample.id, sessionId: sample.sessionId, turn: sample.turn, kind: sample.kind, reward: sample.reward, ready, batchSize });
      const heldNow = held();
      if (heldNow) bus.emit({ type: "batch-held", ready, size: batchSize, ...heldNow });
      return outcome;
    },
    close: () => sink.close(),
  };
}
