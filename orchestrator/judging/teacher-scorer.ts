// Teacher scoring for opd / combine: the SAME response token ids under the hint-enhanced prompt on the judge engine,
// one value (and optional top-K row) per response token, at the teacher temperature. At 1 one prefill request gives
// them all (max_new_tokens 0, log-probs from P − 1); SGLang's prefill log-probs are at 1 only, so any other
// temperature asks one position per request through the sampler (per-position-scoring.ts), a window at a time.
// With opd.teacher trainer it asks nothing: the teacher's token ids (hinted prompt + response) go to the trainer.
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import type { GenerateRequest } from "../../contracts/sglang.ts";
import type { SglangClient } from "../../lib/sglang/sglang-client.ts";
import type { CallLimiter } from "./call-limiter.ts";
import { callWithRetries, type JudgeCallSettings } from "./judge-client.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { hintedPromptIds } from "./hinted-prompt.ts";
import { positionRequest, readPositionValue } from "./per-position-scoring.ts";
import type { TeacherValues } from "../samples/sample-builder.ts";
import { alignTeacherValues, teacherStartLen } from "./teacher-alignment.ts";

export interface TeacherScorerOptions {
  engine: SglangClient;
  template: ChatTemplate;
  tokenizer: ModelTokenizer;
  limiter: CallLimiter;
  settings: Pick<JudgeCallSettings, "timeoutMs" | "retries" | "backoffMs">;
  topk: number;
  /** The temperature of the teacher's log-probs (opd.teacher_temperature, else the rollout temperature). */
  temperature: number;
  /** Per-position scoring: positions asked at once (after the first, which prefills the hinted prompt alone). */
  window: number;
  /** opd.teacher: engine scores on the judge engine; trainer only renders the hinted prompt for the trainer's teacher. */
  place: "engine" | "trainer";
  signal: AbortSignal;
}

/**
 * prefill: one request, SGLang's input log-probs (temperature 1); per-position: one sampler request per token;
 * trainer: no request, the trainer's frozen teacher scores the teacher tokens in its own forward pass.
 */
export type TeacherScoring = "prefill" | "per-position" | "trainer";

export interface TeacherScoringFacts {
  temperature: number;
  scoring: TeacherScoring;
  /** Requests sent to the judge engine (retries not counted). */
  requests: number;
}

export interface TeacherInput {
  messages: readonly ChatMessage[];
  tools: Tool[] | null;
  /** The request's chat_template_kwargs, rendered again with the hint. */
  templateKwargs?: Record<string, unknown>;
  /** The turn's own prompt ids: re-rendering the messages without the hint should give exactly these. */
  promptIds: Int32Array;
  responseIds: readonly number[];
}

export type TeacherOutcome =
  | ({
      ok: true;
      /** The engine's values (null with trainer scoring). */
      values: TeacherValues | null;
      /** trainer scoring: the hinted prompt ids followed by the response ids (null otherwise). */
      teacherTokens: number[] | null;
      promptLength: number;
      /** The prefill request's logprob_start_len (null for per-position scoring, which asks for none). */
      logprobStartLen: number | null;
      /** False when re-rendering the turn's messages (without hint, with its chat_template_kwargs) does not give its
       * prompt ids: the template is not deterministic for them; the hinted prompt may then differ likewise. */
      promptReproduced: boolean;
    } & TeacherScoringFacts)
  | ({ ok: false; reason: string; promptLength: number | null; logprobStartLen: number | null } & TeacherScoringFacts);

type ValuesOutcome = { ok: true; values: TeacherValues } | { ok: false; reason: string };

export class TeacherScorer {
  constructor(private readonly options: TeacherScorerOptions) {}

  get topk(): number {
    return this.options.topk;
  }

  /** How a turn's teacher values are obtained: in the trainer, else by the judge engine at the temperature's cost. */
  get scoring(): TeacherScoring {
    if (this.options.place === "trainer") return "trainer";
    return this.options.temperature === 1 ? "prefill" : "per-position";
  }

  async score(input: TeacherInput, hint: string): Promise<TeacherOutcome> {
    const temperature = this.options.temperature;
    const scoring = this.scoring;
    const facts = { temperature, scoring, requests: 0 };
    let promptIds: number[];
    try {
      promptIds = await hintedPromptIds(input.messages, input.tools, hint, this.options.template, this.options.tokenizer, input.templateKwargs);
    } catch (error) {
      return { ok: false, reason: `cannot render the hinted prompt: ${(error as Error).message}`, promptLength: null, logprobStartLen: null, ...facts };
    }
    const logprobStartLen = scoring === "prefill" ? teacherStartLen(promptIds.length) : null;
    if (promptIds.length === 0) return { ok: false, reason: "the hinted prompt is empty", promptLength: 0, logprobStartLen: null, ...facts };
    if (scoring === "trainer") {
      const teacherTokens = promptIds.concat(input.responseIds);
      return { ok: true, values: null, teacherTokens, promptLength: promptIds.length, logprobStartLen: null, promptReproduced: await this.reproducesPrompt(input), ...facts };
    }
    const outcome = scoring === "prefill" ? await this.scoreByPrefill(promptIds, input.responseIds, facts) : await this.scoreByPosition(promptIds, input.responseIds, facts);
    if (!outcome.ok) return { ok: false, reason: outcome.reason, promptLength: promptIds.length, logprobStartLen, ...facts };
    return { ok: true, values: outcome.values, teacherTokens: null, promptLength: promptIds.length, logprobStartLen, promptReproduced: await this.reproducesPrompt(input), ...facts };
  }

  /** Temperature 1: the prefill's input log-probs, from the last prompt token on. */
  private async scoreByPrefill(promptIds: number[], responseIds: readonly number[], facts: { requests: number }): Promise<ValuesOutcome> {
    const request: GenerateRequest = {
      input_ids: [...promptIds, ...responseIds],
      sampling_params: { temperature: 1, max_new_tokens: 0, skip_special_tokens: false },
      return_logprob: true,
      logprob_start_len: teacherStartLen(promptIds.length),
      ...(this.options.topk > 0 ? { top_logprobs_num: this.options.topk } : {}),
    };
    facts.requests += 1;
    const outcome = await this.call(request);
    if (!outcome.ok) return { ok: false, reason: `teacher call failed after ${outcome.attempts} attempt(s): ${outcome.error}` };
    return alignTeacherValues(outcome.value.meta_info, promptIds, responseIds, this.options.topk);
  }

  /**
   * Any other temperature: position t asks for the token after prompt + response[:t]. Position 0 goes alone (its
   * prefill puts the hinted prompt in the engine's prefix cache), then `window` positions at a time, so each request
   * extends a cached prefix by a few tokens; the first failure ends the scoring.
   */
  private async scoreByPosition(promptIds: number[], responseIds: readonly number[], facts: { requests: number }): Promise<ValuesOutcome> {
    const topk = this.options.topk;
    const logProbs: number[] = new Array(responseIds.length);
    const rows = topk > 0 ? { logProbs: new Array<number[]>(responseIds.length), indices: new Array<number[]>(responseIds.length) } : null;
    const scorePosition = async (position: number): Promise<string | null> => {
      facts.requests += 1;
      const outcome = await this.call(positionRequest(promptIds, responseIds, position, this.options.temperature, topk));
      if (!outcome.ok) return `teacher call for position ${position} failed after ${outcome.attempts} attempt(s): ${outcome.error}`;
      const value = readPositionValue(outcome.value.meta_info, responseIds[position]!, topk, position);
      if (!value.ok) return value.reason;
      logProbs[position] = value.logProb;
      if (rows && value.topk) {
        rows.logProbs[position] = value.topk.logProbs;
        rows.indices[position] = value.topk.indices;
      }
      return null;
    };
    const window = Math.max(1, this.options.window);
    for (let start = 0; start < responseIds.length; start = start === 0 ? 1 : start + window) {
      const end = start === 0 ? 1 : Math.min(responseIds.length, start + window);
      const failures = await Promise.all(Array.from({ length: end - start }, (_, offset) => scorePosition(start + offset)));
      const failure = failures.find((reason) => reason !== null);
      if (failure) return { ok: false, reason: failure };
    }
    return { ok: true, values: { logProbs, topk: rows } };
  }

  private call(request: GenerateRequest) {
    return callWithRetries(
      () => this.options.limiter.run(() => this.options.engine.generate(request, { timeoutMs: this.options.settings.timeoutMs, signal: this.options.signal })),
      this.options.settings,
      this.options.signal,
    );
  }

  private async reproducesPrompt(input: TeacherInput): Promise<boolean> {
    try {
      const ids = await this.options.tokenizer.encode(this.options.template.render(input.messages, { tools: input.tools, addGenerationPrompt: true, extra: input.templateKwargs }));
      return ids.length === input.promptIds.length && ids.every((id, index) => id === input.promptIds[index]);
    } catch {
      return false;
    }
  }
}
