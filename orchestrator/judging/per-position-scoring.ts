// Teacher log-probs at a temperature other than 1: one request per response position, answered by SGLang's sampler.
// Owns that request and the reading of its answer; which positions are asked, and when, is the teacher scorer's.
//
// Why not the prefill request: SGLang's input (prefill) log-probs are log_softmax of the raw logits whatever the
// request's temperature, while the sampler's log-probs of the next token are at the request's temperature, answered as
// meta_info.output_token_ids_logprobs (where, per SGLang commit: tests/fixtures/sglang/logprob-temperature.json). So
// asking for one new token after hinted prompt + response[:t], with token_ids_logprob [response[t]], gives log
// p_T(response[t]) exactly; top_p 1, top_k -1 and min_p 0 keep every filter off the row. Not exact on a judge engine
// started with SGLANG_RETURN_ORIGINAL_LOGPROB=1 (its sampler then returns T = 1 log-probs too).
import { z } from "zod";
import { logprobEntrySchema, type GenerateRequest, type MetaInfo, type SamplingParams } from "../../contracts/sglang.ts";

/** The request for position t: the teacher's distribution of the token after prompt + response[:t]. */
export interface PositionRequest extends GenerateRequest {
  sampling_params: SamplingParams & { min_p: number };
  token_ids_logprob: number[];
}

export function positionRequest(promptIds: readonly number[], responseIds: readonly number[], position: number, temperature: number, topk: number): PositionRequest {
  return {
    input_ids: [...promptIds, ...responseIds.slice(0, position)],
    sampling_params: { temperature, top_p: 1, top_k: -1, min_p: 0, max_new_tokens: 1, skip_special_tokens: false },
    return_logprob: true,
    token_ids_logprob: [responseIds[position]!],
    ...(topk > 0 ? { top_logprobs_num: topk } : {}),
  };
}

const rowSchema = z.array(logprobEntrySchema);
const answerSchema = z
  .object({
    output_token_ids_logprobs: z.array(rowSchema.nullable()).min(1, "no output_token_ids_logprobs entry"),
    output_top_logprobs: z.array(rowSchema.nullable()).optional(),
  })
  .passthrough();

export type PositionValue = { ok: true; logProb: number; topk: { logProbs: number[]; indices: number[] } | null } | { ok: false; reason: string };

/** The asked token's log-prob (and the top-K row) of the first output position; any mismatch is a rejection. */
export function readPositionValue(meta: MetaInfo, token: number, topk: number, position: number): PositionValue {
  const parsed = answerSchema.safeParse(meta);
  if (!parsed.success) return { ok: false, reason: `teacher answer for position ${position} has no output_token_ids_logprobs (${parsed.error.issues[0]?.message})` };
  const row = parsed.data.output_token_ids_logprobs[0];
  const entry = row?.find((candidate) => candidate[1] === token);
  if (!entry) return { ok: false, reason: `teacher answer for position ${position} has no log-prob for token ${token}` };
  const value = entry[0];
  if (value === null || !Number.isFinite(value)) return { ok: false, reason: `teacher value ${position} is missing (${String(value)})` };
  if (topk <= 0) return { ok: true, logProb: value, topk: null };
  const top = parsed.data.output_top_logprobs?.[0];
  if (!top || top.length !== topk) return { ok: false, reason: `teacher top-K row ${position} has ${top ? top.length : 0} entries, expected ${topk}` };
  const logProbs: number[] = [];
  const indices: number[] = [];
  for (const [topValue, id] of top) {
    if (topValue === null || !Number.isFinite(topValue)) return { ok: false, reason: `teacher top-K row ${position} holds a missing value` };
    logProbs.push(topValue);
    indices.push(id);
  }
  return { ok: true, logProb: value, topk: { logProbs, indices } };
}
