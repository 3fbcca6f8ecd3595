// Teacher scoring for opd / combine: the SAME response token ids under the hint-enhanced prompt, prefill-only on
// the judge engine (max_new_tokens 0, log-probs from P − 1, optional top-K), aligned one value per response token.
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import type { GenerateRequest } from "../../contracts/sglang.ts";
import type { SglangClient } from "../engine/sglang-client.ts";
import type { CallLimiter } from "../judge/call-limiter.ts";
import { callWithRetries, type JudgeCallSettings } from "../judge/judge-client.ts";
import type { ChatTemplate } from "../tokenizer/chat-template.ts";
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";
import { hintedPromptIds } from "./hinted-prompt.ts";
import { alignTeacherValues, teacherStartLen, type TeacherValues } from "./teacher-alignment.ts";

export interface TeacherScorerOptions {
  engine: SglangClient;
  template: ChatTemplate;
  tokenizer: ModelTokenizer;
  limiter: CallLimiter;
  settings: Pick<JudgeCallSettings, "timeoutMs" | "retries" | "backoffMs">;
  topk: number;
  signal: AbortSignal;
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
  | {
      ok: true;
      values: TeacherValues;
      promptLength: number;
      logprobStartLen: number;
      /** False when re-rendering the turn's messages (without hint, with its chat_template_kwargs) does not give its
       * prompt ids: the template is not deterministic for them; the hinted prompt may then differ likewise. */
      promptReproduced: boolean;
    }
  | { ok: false; reason: string; promptLength: number | null; logprobStartLen: number | null };

export class TeacherScorer {
  constructor(private readonly options: TeacherScorerOptions) {}

  get topk(): number {
    return this.options.topk;
  }

  async score(input: TeacherInput, hint: string): Promise<TeacherOutcome> {
    let promptIds: number[];
    try {
      promptIds = hintedPromptIds(input.messages, input.tools, hint, this.options.template, this.options.tokenizer, input.templateKwargs);
    } catch (error) {
      return { ok: false, reason: `cannot render the hinted prompt: ${(error as Error).message}`, promptLength: null, logprobStartLen: null };
    }
    const logprobStartLen = teacherStartLen(promptIds.length);
    if (logprobStartLen < 0) return { ok: false, reason: "the hinted prompt is empty", promptLength: promptIds.length, logprobStartLen: null };
    const request: GenerateRequest = {
      input_ids: [...promptIds, ...input.responseIds],
      sampling_params: { temperature: 0, max_new_tokens: 0, skip_special_tokens: false },
      return_logprob: true,
      logprob_start_len: logprobStartLen,
      ...(this.options.topk > 0 ? { top_logprobs_num: this.options.topk } : {}),
    };
    const outcome = await callWithRetries(
      () => this.options.limiter.run(() => this.options.engine.generate(request, { timeoutMs: this.options.settings.timeoutMs, signal: this.options.signal })),
      this.options.settings,
      this.options.signal,
    );
    if (!outcome.ok) return { ok: false, reason: `teacher call failed after ${outcome.attempts} attempt(s): ${outcome.error}`, promptLength: promptIds.length, logprobStartLen };
    const aligned = alignTeacherValues(outcome.value.meta_info, promptIds, input.responseIds, this.options.topk);
    if (!aligned.ok) return { ok: false, reason: aligned.reason, promptLength: promptIds.length, logprobStartLen };
    return { ok: true, values: aligned.values, promptLength: promptIds.length, logprobStartLen, promptReproduced: this.reproducesPrompt(input) };
  }

  private reproducesPrompt(input: TeacherInput): boolean {
    try {
      const ids = this.options.tokenizer.encode(this.options.template.render(input.messages, { tools: input.tools, addGenerationPrompt: true, extra: input.templateKwargs }));
      return ids.length === input.promptIds.length && ids.every((id, index) => id === input.promptIds[index]);
    } catch {
      return false;
    }
  }
}
