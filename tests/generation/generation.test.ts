// Generation reads every streaming form of SGLang token-exactly, deciding per chunk and per field from what the chunk
// carries (tests/fixtures/sglang/stream-forms.json): the legacy form of the fork's SGLang (ids as deltas, text and
// log-probs whole) used to keep only the first token; a lagging reader of that form misses ids the log-probs still
// name; a mid-stream error without a code (dce8b060) is the request's fault, a 400.
import { describe, expect, it } from "vitest";
import type { GenerateResponse, StreamForm } from "../../contracts/sglang.ts";
import { EngineStatusError } from "../../lib/sglang/engine-errors.ts";
import { parseStreamChunk } from "../../lib/sglang/stream-chunk.ts";
import { takeNewTokens } from "../../orchestrator/generation/generation.ts";
import { toOpenAiError } from "../../orchestrator/proxy/openai-errors.ts";

const ANSWER = [11, 22, 33, 44, 151645];
const LOGPROB = (id: number) => -id / 1000;

/** The chunks SGLang sends for ANSWER, one token each, in `form` (fields as the fixture says). */
function chunksOf(form: StreamForm, answer = ANSWER): GenerateResponse[] {
  return answer.map((_, index) => {
    const whole = answer.slice(0, index + 1);
    const delta = [answer[index]!];
    const ids = form === "cumulative" ? whole : delta;
    const logprobIds = form === "incremental" ? delta : whole;
    const meta: GenerateResponse["meta_info"] = {
      id: "r",
      finish_reason: index === answer.length - 1 ? { type: "stop", matched: 151645 } : null,
      weight_version: "3",
      completion_tokens: index + 1,
      output_token_logprobs: logprobIds.map((id) => [LOGPROB(id), id, null]),
      ...(form === "legacy" ? {} : { output_token_logprobs_length: index + 1 }),
    } as GenerateResponse["meta_info"];
    return { text: "", output_ids: ids, meta_info: meta };
  });
}

function capture(chunks: readonly GenerateResponse[]): { ids: number[]; logProbs: number[] } {
  let seen = 0;
  const ids: number[] = [];
  const logProbs: number[] = [];
  for (const chunk of chunks) {
    const fresh = takeNewTokens(chunk, seen);
    seen += fresh.taken;
    ids.push(...fresh.ids);
    logProbs.push(...fresh.logProbs);
  }
  return { ids, logProbs };
}

describe("capture in each streaming form", () => {
  for (const form of ["cumulative", "incremental", "legacy"] as const) {
    it(`${form}: every token once, with its own log-prob`, () => {
      expect(capture(chunksOf(form))).toEqual({ ids: ANSWER, logProbs: ANSWER.map(LOGPROB) });
    });
  }

  it("legacy, the audit's case: five chunks of the fork's SGLang keep all five tokens (not only the first)", () => {
    expect(capture(chunksOf("legacy")).ids).toEqual([11, 22, 33, 44, 151645]);
  });

  it("legacy with a lagging reader: SGLang sent only the newest chunk, whose ids lack the skipped ones; the whole log-prob list still names them", () => {
    const all = chunksOf("legacy");
    const lagged = [all[0]!, { ...all[3]!, output_ids: [44] }, all[4]!]; // chunks 2 and 3 were never sent
    expect(capture(lagged)).toEqual({ ids: ANSWER, logProbs: ANSWER.map(LOGPROB) });
  });

  it("incremental with a lagging reader: queued chunks arrive joined", () => {
    const all = chunksOf("incremental");
    const joined = { ...all[3]!, output_ids: [22, 33, 44], meta_info: { ...all[3]!.meta_info, output_token_logprobs: [22, 33, 44].map((id) => [LOGPROB(id), id, null]) } } as GenerateResponse;
    expect(capture([all[0]!, joined, all[4]!]).ids).toEqual(ANSWER);
  });

  it("an output id that disagrees with its log-prob entry is an engine error, not a silent mix", () => {
    const [first, second] = chunksOf("legacy");
    expect(() => capture([first!, { ...second!, output_ids: [99] }])).toThrow(/output id 99 does not match its log-prob entry's token 22/);
  });

  it("a stray last id without a log-prob entry (an abort from the waiting queue) is dropped, not an error", () => {
    const [first] = chunksOf("incremental");
    const aborted = { output_ids: [22], meta_info: { id: "r", finish_reason: { type: "abort", message: "paused" }, completion_tokens: 2, output_token_logprobs: [] } } as unknown as GenerateResponse;
    expect(capture([first!, aborted]).ids).toEqual([11]);
  });
});

describe("a mid-stream error chunk", () => {
  const parse = (body: unknown) => () => parseStreamChunk(JSON.stringify(body), "http://engine", { ids: 0, logprobs: 0 });

  it("without a code (SGLang dce8b060) is a 400 the proxy answers as engine-rejected", () => {
    let caught: unknown;
    try {
      parse({ error: { message: "The input (40001 tokens) is longer than the model's context length (40000 tokens)." } })();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EngineStatusError);
    expect(caught).toMatchObject({ status: 400, retryable: false });
    expect(toOpenAiError(caught)).toMatchObject({ status: 400, code: "engine_rejected", message: expect.stringContaining("longer than the model's context length") });
  });

  it("with a code keeps its meaning (0.5.11+: the status, 503 retryable)", () => {
    expect(parse({ error: { message: "overloaded", code: 503 } })).toThrow(expect.objectContaining({ status: 503, retryable: true }));
    expect(parse({ error: { message: "bad", type: "invalid_request_error", code: 400, retryable: false } })).toThrow(expect.objectContaining({ status: 400, retryable: false }));
  });
});
