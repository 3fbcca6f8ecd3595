// Where judged samples go: the durable sample store (bridge to the trainer) or a JSONL file. Judging
// depends only on this interface; a put() resolves once the sample is durable.
import type { Sample } from "./sample.ts";

/**
 * What a put() did: `stored` (written now), or `already-stored` (this very sample, same id and same content, was
 * stored before: nothing written, nothing new to announce).
 */
export type PutOutcome = "stored" | "already-stored";

export interface SampleSink {
  /** Rejects when the sample is not stored: a write error, a malformed sample, or SAMPLE_DUPLICATE (another sample has its id). */
  put(sample: Sample): Promise<PutOutcome>;
  close(): Promise<void>;
}
