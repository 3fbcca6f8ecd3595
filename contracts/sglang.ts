// SGLang's native /generate wire shapes (see ../shared/reference/sglang-streaming.md): parsed with zod where
// they enter. Log-prob entries are [logprob|null, token_id, text|null] tuples; entry 0 of input log-probs is null.
import { z } from "zod";

export const logprobEntrySchema = z.tuple([z.number().nullable(), z.number().int(), z.string().nullable()]).rest(z.unknown());
export type LogprobEntry = z.infer<typeof logprobEntrySchema>;

export const finishReasonSchema = z.union([
  z.object({ type: z.literal("stop"), matched: z.union([z.number(), z.string(), z.null()]).optional() }).passthrough(),
  z.object({ type: z.literal("length"), length: z.number().optional() }).passthrough(),
  z.object({ type: z.literal("abort"), message: z.string().optional(), status_code: z.number().nullable().optional(), err_type: z.string().nullable().optional() }).passthrough(),
]);
export type SglangFinishReason = z.infer<typeof finishReasonSchema>;

export const metaInfoSchema = z
  .object({
    id: z.string().optional(),
    finish_reason: finishReasonSchema.nullable().optional(),
    prompt_tokens: z.number().int().optional(),
    completion_tokens: z.number().int().optional(),
    cached_tokens: z.number().int().optional(),
    weight_version: z.union([z.string(), z.number()]).transform(String).optional(),
    input_token_logprobs: z.array(logprobEntrySchema).optional(),
    output_token_logprobs: z.array(logprobEntrySchema).optional(),
    input_top_logprobs: z.array(z.array(logprobEntrySchema).nullable()).optional(),
    output_top_logprobs: z.array(z.array(logprobEntrySchema).nullable()).optional(),
    output_token_logprobs_length: z.number().int().optional(),
  })
  .passthrough();
export type MetaInfo = z.infer<typeof metaInfoSchema>;

export const generateResponseSchema = z
  .object({
    text: z.string().nullable().optional(),
    output_ids: z.array(z.number().int()).optional(),
    meta_info: metaInfoSchema,
  })
  .passthrough();
export type GenerateResponse = z.infer<typeof generateResponseSchema>;

/** A mid-stream error chunk (`data: {"error": {...}}`), HTTP still 200. */
export const streamErrorSchema = z.object({
  error: z.object({ message: z.string(), type: z.string().optional(), code: z.union([z.number(), z.string()]).optional() }).passthrough(),
});

export interface SamplingParams {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  max_new_tokens?: number;
  stop?: string[];
  stop_token_ids?: number[];
  skip_special_tokens?: boolean;
  no_stop_trim?: boolean;
  spaces_between_special_tokens?: boolean;
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
}

export interface GenerateRequest {
  text?: string;
  input_ids?: number[];
  sampling_params: SamplingParams;
  return_logprob?: boolean;
  logprob_start_len?: number;
  top_logprobs_num?: number;
  stream?: boolean;
  rid?: string;
}

/**
 * The forms of a streamed /generate: cumulative (every chunk repeats the whole answer so far; SGLang's default),
 * incremental (ids, text and log-probs are deltas: --incremental-streaming-output, SGLang 0.5.11+), legacy (only the
 * ids are deltas, text and log-probs stay whole: --stream-output before 0.5.11, as in the fork's dce8b060).
 */
export const STREAM_FORMS = ["cumulative", "incremental", "legacy"] as const;
export type StreamForm = (typeof STREAM_FORMS)[number];
