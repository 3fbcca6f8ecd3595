// Request schemas of the stand-in SGLang server's control routes (zod at the HTTP edge; /generate's is the one in
// contracts/sglang.ts that the client sends) and the meta_info / log-prob builders that give its answers SGLang's real
// shapes. No I/O here.
import { z } from "zod";
import { generateRequestSchema } from "../../contracts/sglang.ts";
import type { FinishReason } from "./generation.ts";
import { topRow } from "../model/responder.ts";

export { generateRequestSchema };
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
