// Reads the teacher's per-response-token values out of a prefill-scoring answer. The request scores
// enhanced_prompt_ids + response_ids from logprob_start_len = P − 1, so entry 0 (null) belongs to the last prompt
// token and entry i ≥ 1 to response token i − 1. Nothing is ever padded or invented: any mismatch is a rejection.
import type { MetaInfo } from "../../contracts/sglang.ts";
import type { TeacherValues } from "../samples/sample-builder.ts";

export type AlignmentResult = { ok: true; values: TeacherValues } | { ok: false; reason: string };

/** logprob_start_len for a prompt of `promptLength` tokens: one before the first response token. */
export function teacherStartLen(promptLength: number): number {
  return promptLength - 1;
}

export function alignTeacherValues(meta: MetaInfo, promptIds: readonly number[], responseIds: readonly number[], topk: number): AlignmentResult {
  const expected = responseIds.length + 1;
  const entries = meta.input_token_logprobs;
  if (!entries) return { ok: false, reason: "teacher answer has no input_token_logprobs" };
  if (entries.length !== expected) {
    return { ok: false, reason: `teacher returned ${entries.length} input log-probs, expected ${expected} (1 + ${responseIds.length} response tokens)` };
  }
  const anchor = entries[0]![1];
  if (anchor !== promptIds[promptIds.length - 1]) {
    return { ok: false, reason: `teacher entry 0 is token ${anchor}, expected the last prompt token ${promptIds[promptIds.length - 1]}` };
  }
  const logProbs: number[] = [];
  for (let index = 0; index < responseIds.length; index += 1) {
    const [value, tokenId] = entries[index + 1]!;
    if (tokenId !== responseIds[index]) return { ok: false, reason: `teacher value ${index} is for token ${tokenId}, the response has ${responseIds[index]}` };
    if (value === null || !Number.isFinite(value)) return { ok: false, reason: `teacher value ${index} is missing (${String(value)})` };
    logProbs.push(value);
  }
  if (topk <= 0) return { ok: true, values: { logProbs, topk: null } };

  const rows = meta.input_top_logprobs;
  if (!rows) return { ok: false, reason: "teacher answer has no input_top_logprobs" };
  if (rows.length !== expected) return { ok: false, reason: `teacher returned ${rows.length} top-K rows, expected ${expected}` };
  const topLogProbs: number[][] = [];
  const topIndices: number[][] = [];
  for (let index = 0; index < responseIds.length; index += 1) {
    const row = rows[index + 1];
    if (!row || row.length !== topk) return { ok: false, reason: `teacher top-K row ${index} has ${row ? row.length : 0} entries, expected ${topk}` };
    const rowLogProbs: number[] = [];
    const rowIndices: number[] = [];
    for (const [value, tokenId] of row) {
      if (value === null || !Number.isFinite(value)) return { ok: false, reason: `teacher top-K row ${index} holds a missing value` };
      rowLogProbs.push(value);
      rowIndices.push(tokenId);
    }
    topLogProbs.push(rowLogProbs);
    topIndices.push(rowIndices);
  }
  return { ok: true, values: { logProbs, topk: { logProbs: topLogProbs, indices: topIndices } } };
}
