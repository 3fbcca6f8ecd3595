// Where judged samples go: the durable sample store (bridge to the trainer) or a JSONL file. Judging
// depends only on this interface; a put() resolves once the sample is durable.
import type { Sample } from "./sample.ts";

export interface SampleSink {
  put(sample: Sample): Promise<void>;
  close(): Promise<void>;
}
