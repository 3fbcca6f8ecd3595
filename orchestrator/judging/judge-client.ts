// Asks the judge engine for m votes in parallel: the prompt rendered with the judge's chat template, text-mode
// /generate, a timeout per call and bounded retries with backoff for retryable errors. A failed or unparseable
// vote is returned as no vote (score null, with its error); nothing is ever turned into a silent 0.
import { sleepUnlessAborted } from "../../lib/abortable-sleep.ts";
import type { ChatMessage } from "../../contracts/chat.ts";
import { isOpenclawRlError } from "../../contracts/errors.ts";
import type { GenerateRequest } from "../../contracts/sglang.ts";
import type { SglangClient } from "../../lib/sglang/sglang-client.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { CallLimiter } from "./call-limiter.ts";
import { parseJudgeAnswer, type JudgePurpose } from "./judge-answer.ts";
import type { Vote } from "./vote-tally.ts";

export interface JudgeCallSettings {
  votes: number;
  temperature: number;
  maxNewTokens: number;
  timeoutMs: number;
  retries: number;
  /** First backoff between retries; doubles each time, capped at 30 s. */
  backoffMs: number;
}

export interface JudgeClientOptions {
  engine: SglangClient;
  template: ChatTemplate;
  limiter: CallLimiter;
  settings: JudgeCallSettings;
  /** Aborts every call (shutdown). */
  signal: AbortSignal;
}

export class JudgeClient {
  constructor(private readonly options: JudgeClientOptions) {}

  /** The text the judge engine gets: the judge's own chat template with the generation prompt. */
  renderPrompt(messages: readonly ChatMessage[]): string {
    return this.options.template.render(messages, { addGenerationPrompt: true });
  }

  /** Runs `count` votes in parallel; each result is a vote or a recorded no-vote. Never throws for a call failure. */
  async vote(purpose: JudgePurpose, messages: readonly ChatMessage[], count = this.options.settings.votes, onVote?: (vote: Vote) => void): Promise<Vote[]> {
    const text = this.renderPrompt(messages);
    return Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const vote = await this.voteOnce(purpose, text, index);
        onVote?.(vote);
        return vote;
      }),
    );
  }

  private async voteOnce(purpose: JudgePurpose, text: string, index: number): Promise<Vote> {
    const { settings } = this.options;
    const request: GenerateRequest = {
      text,
      sampling_params: {
        temperature: settings.temperature,
        top_p: 1,
        top_k: -1,
        max_new_tokens: settings.maxNewTokens,
        skip_special_tokens: false,
        no_stop_trim: true,
        spaces_between_special_tokens: false,
      },
      return_logprob: false,
    };
    const started = Date.now();
    const outcome = await callWithRetries(
      () => this.options.limiter.run(() => this.options.engine.generate(request, { timeoutMs: settings.timeoutMs, signal: this.options.signal })),
      settings,
      this.options.signal,
    );
    const ms = Date.now() - started;
    if (!outcome.ok) return { index, score: null, hint: "", raw: "", error: outcome.error, callFailed: true, attempts: outcome.attempts, ms };
    const raw = outcome.value.text ?? "";
    const parsed = parseJudgeAnswer(raw, purpose);
    return { index, score: parsed.score, hint: parsed.hint, raw, error: parsed.problem, callFailed: false, attempts: outcome.attempts, ms };
  }
}

export type CallOutcome<T> = { ok: true; value: T; attempts: number } | { ok: false; error: string; attempts: number };

/** Calls `task`; retries retryable failures up to settings.retries times with doubling backoff. Never throws. */
export async function callWithRetries<T>(task: () => Promise<T>, settings: Pick<JudgeCallSettings, "retries" | "backoffMs">, signal: AbortSignal): Promise<CallOutcome<T>> {
  let attempts = 0;
  for (;;) {
    attempts += 1;
    try {
      return { ok: true, value: await task(), attempts };
    } catch (error) {
      const message = describeError(error);
      const retryable = isOpenclawRlError(error) && error.retryable;
      if (!retryable || attempts > settings.retries || signal.aborted) return { ok: false, error: message, attempts };
      await sleepUnlessAborted(Math.min(settings.backoffMs * 2 ** (attempts - 1), 30_000), signal);
    }
  }
}

function describeError(error: unknown): string {
  if (isOpenclawRlError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
