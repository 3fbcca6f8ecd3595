// One SSE event of SGLang's streamed /generate → a validated GenerateResponse, in linear time over a stream of
// cumulative chunks (each output id and log-prob entry checked once). Ignores HTTP and connection handling.
import { OpenclawRlError } from "../../contracts/errors.ts";
import { generateResponseSchema, streamErrorSchema, type GenerateResponse } from "../../contracts/sglang.ts";
import { EngineStatusError } from "./engine-errors.ts";

/** How many entries of the cumulative output arrays earlier chunks of this stream already validated. */
export interface StreamChecks {
  ids: number;
  logprobs: number;
}

/**
 * One streamed chunk, validated in linear time: in SGLang's default mode each chunk repeats every output id and
 * log-prob so far, so those two arrays are checked only past what earlier chunks checked; zod checks the rest.
 */
export function parseStreamChunk(data: string, baseUrl: string, checked: StreamChecks): GenerateResponse {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (cause) {
    throw new OpenclawRlError("ENGINE_ERROR", `malformed stream chunk from ${baseUrl}`, { cause, path: baseUrl });
  }
  if (typeof value === "object" && value !== null && "error" in value) {
    const error = streamErrorSchema.safeParse(value);
    if (error.success) {
      // SGLang sends a ValueError raised mid-stream (the request's own fault: too long, bad parameters) with the
      // status as code from 0.5.11 on, and before that with no code (tests/fixtures/sglang/stream-forms.json
      // mid_stream_error): a 400 either way.
      const given = Number(error.data.error.code);
      const code = error.data.error.code === undefined || !Number.isFinite(given) ? 400 : given;
      throw new EngineStatusError(code, `engine error mid-stream: ${error.data.error.message}`, { path: baseUrl, reason: error.data.error.message });
    }
  }
  const raw = value as { output_ids?: unknown; meta_info?: { output_token_logprobs?: unknown; completion_tokens?: unknown } };
  const ids = raw?.output_ids;
  const entries = raw?.meta_info?.output_token_logprobs;
  const completion = raw?.meta_info?.completion_tokens;
  let parsed: { data: GenerateResponse };
  if (isCommonChunk(value)) parsed = { data: value as GenerateResponse }; // the usual shape: checked by hand, no copy
  else {
    // zod checks everything but the two big arrays (validated below), which it sees empty
    let light: unknown = value;
    if (typeof raw?.meta_info === "object" && raw.meta_info !== null && (Array.isArray(ids) || Array.isArray(entries))) {
      light = { ...raw, ...(Array.isArray(ids) ? { output_ids: [] } : {}), meta_info: { ...raw.meta_info, ...(Array.isArray(entries) ? { output_token_logprobs: [] } : {}) } };
    }
    const result = generateResponseSchema.safeParse(light);
    if (!result.success) return fail(baseUrl, result.error.issues[0]?.message ?? "invalid");
    parsed = result;
  }
  if (Array.isArray(ids)) {
    const cumulative = ids.length === completion;
    for (let index = cumulative ? Math.min(checked.ids, ids.length) : 0; index < ids.length; index++) {
      if (!Number.isInteger(ids[index])) fail(baseUrl, `output_ids.${index} is not a token id`);
    }
    if (cumulative) checked.ids = ids.length;
    parsed.data.output_ids = ids as number[];
  } else if (ids !== undefined) fail(baseUrl, "output_ids is not an array");
  if (Array.isArray(entries)) {
    const cumulative = entries.length === completion;
    for (let index = cumulative ? Math.min(checked.logprobs, entries.length) : 0; index < entries.length; index++) {
      const entry = entries[index] as unknown[];
      const ok = Array.isArray(entry) && entry.length >= 3 && (entry[0] === null || typeof entry[0] === "number") && Number.isInteger(entry[1]) && (entry[2] === null || typeof entry[2] === "string");
      if (!ok) fail(baseUrl, `meta_info.output_token_logprobs.${index} is not [logprob, token_id, text]`);
    }
    if (cumulative) checked.logprobs = entries.length;
    parsed.data.meta_info.output_token_logprobs = entries as GenerateResponse["meta_info"]["output_token_logprobs"];
  } else if (entries !== undefined) fail(baseUrl, "meta_info.output_token_logprobs is not an array");
  return parsed.data;
}

/** Module level, not a closure made per chunk: this runs once for every token the engine streams. */
function fail(baseUrl: string, message: string): never {
  throw new OpenclawRlError("ENGINE_ERROR", `unexpected stream chunk from ${baseUrl}: ${message}`, { path: baseUrl });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const optionalInteger = (value: unknown): boolean => value === undefined || Number.isInteger(value);
const optionalString = (value: unknown, nullable = false): boolean => value === undefined || typeof value === "string" || (nullable && value === null);

/**
 * Whether a chunk has the shape SGLang streams (a subset of what generateResponseSchema accepts, the two big
 * arrays aside), so zod can be skipped; anything else (input log-probs, numeric weight versions, …) goes to zod.
 */
function isCommonChunk(value: unknown): boolean {
  if (!isObject(value) || !isObject(value.meta_info)) return false;
  if (value.text !== undefined && value.text !== null && typeof value.text !== "string") return false;
  const meta = value.meta_info;
  if (meta.input_token_logprobs !== undefined || meta.input_top_logprobs !== undefined || meta.output_top_logprobs !== undefined) return false;
  if (!optionalString(meta.id) || !optionalString(meta.weight_version)) return false;
  if (!optionalInteger(meta.prompt_tokens) || !optionalInteger(meta.completion_tokens) || !optionalInteger(meta.cached_tokens) || !optionalInteger(meta.output_token_logprobs_length)) return false;
  const finish = meta.finish_reason;
  if (finish === undefined || finish === null) return true;
  if (!isObject(finish)) return false;
  if (finish.type === "stop") return finish.matched === undefined || finish.matched === null || typeof finish.matched === "number" || typeof finish.matched === "string";
  if (finish.type === "length") return finish.length === undefined || typeof finish.length === "number";
  if (finish.type === "abort") {
    return optionalString(finish.message) && (finish.status_code === undefined || finish.status_code === null || typeof finish.status_code === "number") && optionalString(finish.err_type, true);
  }
  return false;
}
