// Request schemas of the stand-in SGLang server (zod at the HTTP edge) and the meta_info / log-prob builders that
// give its answers SGLang's real shapes (see shared/reference/sglang-streaming.md §1, §5). No I/O here.
import { z } from "zod";
import type { FinishReason } from "./standin-generation.ts";
import { topRow } from "./standin-model.ts";

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
export type StandinGenerateRequest = z.output<typeof generateRequestSchema>;

export const pauseRequestSchema = z.object({ mode: z.enum(["abort", "retract", "in_place"]).default("abort") }).passthrough();
export const abortRequestSchema = z.object({ rid: z.string().default(""), abort_all: z.boolean().default(false) }).passthrough();
export const updateWeightVersionSchema = z.object({ new_version: z.union([z.string(), z.number()]).transform(String), abort_all_requests: z.boolean().default(false) }).passthrough();
export const updateWeightsFromDiskSchema = z
  .object({
    model_path: z.string().min(1),
    weight_version: z.union([z.string(), z.number()]).transform(String).nullable().optional(),
    abort_all_requests: z.boolean().default(false),
  })
  .passthrough();

export type LogprobTuple = [number | null, number, string | null];

export interface LogprobView {
  returnLogprob: boolean;
  logprobStartLen: number;
  topLogprobsNum: number;
  /** token_ids_logprob: ids whose sampler log-probs every output position reports (output_token_ids_logprobs). */
  tokenIdsLogprob: number[] | null;
  /** The sampler's temperature (samplerTemperature); prefill log-probs ignore it, as SGLang's do. */
  temperature: number;
  tokenText: ((id: number) => string) | null;
}

/** input_token_logprobs / input_top_logprobs: N−L entries aligned with input_ids[L:], entry 0 has no value. */
export function inputLogprobFields(inputIds: readonly number[], scores: readonly number[], view: LogprobView): Record<string, unknown> {
  const start = view.logprobStartLen;
  if (start < 0) return { input_token_logprobs: [], input_top_logprobs: [] };
  const tokens: LogprobTuple[] = [];
  const tops: Array<LogprobTuple[] | null> = [];
  for (let position = start; position < inputIds.length; position += 1) {
    const token = inputIds[position] as number;
    const text = view.tokenText ? view.tokenText(token) : null;
    if (position === start) {
      tokens.push([null, token, text]);
      tops.push(null);
      continue;
    }
    const logprob = scores[position] ?? 0;
    tokens.push([logprob, token, text]);
    tops.push(topRow(token, logprob, view.topLogprobsNum).map(([value, id]) => [value, id, view.tokenText ? view.tokenText(id) : null]));
  }
  return { input_token_logprobs: tokens, input_top_logprobs: view.topLogprobsNum > 0 ? tops : [] };
}

export function outputLogprobFields(outputIds: readonly number[], logprobs: readonly number[], view: LogprobView): Record<string, unknown> {
  const text = (id: number) => (view.tokenText ? view.tokenText(id) : null);
  return {
    output_token_logprobs: outputIds.map((id, index) => [logprobs[index] ?? 0, id, text(id)]),
    output_top_logprobs:
      view.topLogprobsNum > 0 ? outputIds.map((id, index) => topRow(id, logprobs[index] ?? 0, view.topLogprobsNum).map(([value, top]) => [value, top, text(top)])) : [],
  };
}

export interface MetaInfoInput {
  rid: string;
  finishReason: FinishReason | null;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  weightVersion: string;
  first: boolean;
  startedAt: number;
}

export function metaInfo(input: MetaInfoInput, logprobs: Record<string, unknown> | null): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    id: input.rid,
    finish_reason: input.finishReason,
    prompt_tokens: input.promptTokens,
    weight_version: input.weightVersion,
    num_retractions: 0,
  };
  if (logprobs) Object.assign(meta, logprobs, { output_token_logprobs_length: input.completionTokens });
  meta.reasoning_tokens = 0;
  meta.completion_tokens = input.completionTokens;
  meta.cached_tokens = input.cachedTokens;
  if (input.first) meta.response_sent_to_client_ts = Date.now() / 1000;
  if (input.finishReason !== null) meta.e2e_latency = (Date.now() - input.startedAt) / 1000;
  return meta;
}
