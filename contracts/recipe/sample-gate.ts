// The recipe's `training.sample_gate` section: which responses are never trained. Ignores the gate itself (orchestrator/samples).
import { z } from "zod";
import { positiveInt } from "./scalars.ts";

export const sampleGateSchema = z
  .object({
    enabled: z.boolean().default(true).describe("Refuse responses unfit to train on before judging them: no sample, the reason in judgements.jsonl and counted in status (judging.skipped)."),
    drop_truncated: z.boolean().default(true).describe("No sample from a response cut at the token limit (finish reason length): often a loop that ran until model.max_response_tokens."),
    min_answer_chars: z
      .number()
      .int()
      .min(0)
      .default(2)
      .describe("No sample from an answer with fewer visible characters than this (whitespace and reasoning left out; a tool call always passes): catches empty and one-character answers. 0 turns the check off."),
    max_repeat_fraction: z
      .number()
      .gt(0)
      .max(1)
      .default(0.8)
      .describe("No sample when at least this share of the n-grams of token ids in the response's tail repeat earlier ones (a loop of period p fills w tokens with about p distinct n-grams). 1 catches only exact single-token loops."),
    loop_window_tokens: positiveInt.default(1024).describe("Tokens at the end of the response the repetition check looks at (loops longer than about a fifth of it are not seen)."),
    loop_ngram_tokens: positiveInt.max(64).default(8).describe("Length of the token n-grams the repetition check counts; a table or code row that differs in one value makes new n-grams."),
    loop_min_tokens: positiveInt.default(64).describe("Responses shorter than this are not checked for repetition."),
  })
  .strict()
  .prefault({});
export type SampleGateSettings = z.infer<typeof sampleGateSchema>;
