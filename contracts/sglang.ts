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

/** SGLang's sampling parameters, as far as we send or check them (others pass through). */
export const samplingParamsSchema = z
  .object({
    temperature: z.number().min(0).optional(),
    top_p: z.number().gt(0).max(1).optional(),
    top_k: z.number().int().optional(),
    min_p: z.number().optional(),
    max_new_tokens: z.number().int().min(0).nullable().optional(),
    stop: z.union([z.string(), z.array(z.string())]).nullable().optional(),
    stop_token_ids: z.array(z.number().int()).nullable().optional(),
    skip_special_tokens: z.boolean().optional(),
    no_stop_trim: z.boolean().optional(),
    spaces_between_special_tokens: z.boolean().optional(),
    ignore_eos: z.boolean().optional(),
    seed: z.number().int().optional(),
    presence_penalty: z.number().optional(),
    frequency_penalty: z.number().optional(),
    repetition_penalty: z.number().optional(),
  })
  .passthrough();

/** POST /generate: what the client sends and the stand-in accepts (SGLang checks the same rules). */
export const generateRequestSchema = z
  .object({
    text: z.string().optional(),
    input_ids: z.array(z.number().int().min(0)).optional(),
    sampling_params: samplingParamsSchema.default({}),
    return_logprob: z.boolean().default(false),
    logprob_start_len: z.number().int().min(-1).default(-1),
    top_logprobs_num: z.number().int().min(0).default(0),
    token_ids_logprob: z.array(z.number().int().min(0)).optional(),
    return_text_in_logprobs: z.boolean().default(false),
    stream: z.boolean().default(false),
    rid: z.string().optional(),
  })
  .passthrough()
  .superRefine((request, context) => {
    if ((request.text === undefined) === (request.input_ids === undefined)) {
      context.addIssue({ code: "custom", message: "Either text or input_ids should be provided (exactly one)", path: ["text"] });
    }
    if (request.input_ids !== undefined && request.input_ids.length === 0) {
      context.addIssue({ code: "custom", message: "input_ids is empty", path: ["input_ids"] });
    }
  });
export type SamplingParams = z.input<typeof samplingParamsSchema>;
export type GenerateRequest = z.input<typeof generateRequestSchema>;

/**
 * The forms of a streamed /generate: cumulative (every chunk repeats the whole answer so far; SGLang's default),
 * incremental (ids, text and log-probs are deltas: --incremental-streaming-output, SGLang 0.5.11+), legacy (only the
 * ids are deltas, text and log-probs stay whole: --stream-output before 0.5.11, as in the fork's dce8b060).
 */
export const STREAM_FORMS = ["cumulative", "incremental", "legacy"] as const;
export type StreamForm = (typeof STREAM_FORMS)[number];
