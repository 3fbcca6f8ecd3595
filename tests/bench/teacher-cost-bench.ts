// The judge engine's cost of one OPD turn's teacher, per teacher mode and response length: the orchestrator's own
// TeacherScorer runs against a counting stand-in engine (an SglangClient that counts each /generate request and its
// input tokens and answers with well-formed log-probs), so the numbers are what the request-building code sends.
// Modes: engine at temperature 1 (one prefill), engine at 0.6 (per-position scoring), trainer (nothing sent; the
// trainer's teacher runs one forward over hinted prompt + response).
import type { GenerateRequest, GenerateResponse } from "../../contracts/sglang.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { scoreOverIds } from "../support/ids-teacher-scorer.ts";

const PROMPT_TOKENS = 1024; // the hinted prompt
const RESPONSE_TOKENS = [256, 2048, 8192];
const WINDOW = 8; // judge.concurrency's default: positions asked at once

/** Counts what reaches the engine; answers a prefill with input log-probs and a position with its asked id's. */
class CountingEngine extends SglangClient {
  requests = 0;
  inputTokens = 0;

  constructor() {
    super({ baseUrl: "http://counting.invalid" });
  }

  override async generate(request: GenerateRequest): Promise<GenerateResponse> {
    const ids = request.input_ids ?? [];
    this.requests += 1;
    this.inputTokens += ids.length;
    if (request.sampling_params?.max_new_tokens === 0) {
      const start = request.logprob_start_len ?? 0;
      return { text: "", output_ids: [], meta_info: { input_token_logprobs: ids.slice(start).map((id, index) => [index === 0 ? null : -1, id, null]) } };
    }
    const asked = (request as GenerateRequest & { token_ids_logprob?: number[] }).token_ids_logprob ?? [];
    return { text: "", output_ids: [0], meta_info: { output_token_ids_logprobs: [asked.map((id) => [-1, id, null])] } } as GenerateResponse;
  }
}

const modes = [
  { label: "engine, teacher T = 1 (prefill)", place: "engine" as const, temperature: 1 },
  { label: "engine, teacher T = 0.6 (per-position)", place: "engine" as const, temperature: 0.6 },
  { label: "trainer (opd.teacher: trainer)", place: "trainer" as const, temperature: 0.6 },
];
const promptIds = Array.from({ length: PROMPT_TOKENS }, (_, index) => 1000 + index);

console.log(`Per OPD turn: a ${PROMPT_TOKENS}-token hinted prompt, judge.concurrency ${WINDOW}. Counted at the engine client, no retries; input tokens are those sent (SGLang's prefix cache spares most of the per-position ones from prefill, not the requests).\n`);
console.log("| teacher mode | response tokens | judge-engine requests | judge-engine input tokens | trainer teacher forward tokens |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const mode of modes) {
  for (const length of RESPONSE_TOKENS) {
    const engine = new CountingEngine();
    const responseIds = Array.from({ length }, (_, index) => 5000 + (index % 3000));
    const outcome = await scoreOverIds({ engine, promptIds, responseIds, temperature: mode.temperature, topk: 0, window: WINDOW, place: mode.place });
    if (!outcome.ok) throw new Error(`${mode.label}, ${length}: ${outcome.reason}`);
    if (outcome.requests !== engine.requests) throw new Error(`${mode.label}: the scorer counted ${outcome.requests} requests, the engine ${engine.requests}`);
    const forward = outcome.teacherTokens ? outcome.teacherTokens.length : 0;
    console.log(`| ${mode.label} | ${length} | ${engine.requests} | ${engine.inputTokens.toLocaleString("en")} | ${forward || "—"} |`);
  }
}
