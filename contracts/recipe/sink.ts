// The recipe's `sink` section: where samples go (the trainer's bridge or a JSONL file). Ignores the samples' shape.
import { z } from "zod";

export const sinkSchema = z
  .object({
    kind: z.enum(["bridge", "jsonl"]).default("bridge").describe("bridge: hand samples to the trainer; jsonl: append them to sink.path (train later)."),
    path: z.string().optional().describe("JSONL file for sink.kind jsonl (relative paths are inside records.dir)."),
  })
  .strict()
  .prefault({});
