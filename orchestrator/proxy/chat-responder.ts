// Chat completions as a responder: chat.completion.chunk events through ChunkWriter, or one chat.completion body,
// with the request's logprobs and stream_options. Ignores generation and the turn's bookkeeping.
import { randomUUID } from "node:crypto";
import type { ChatRequest } from "../../contracts/chat.ts";
import type { OpenAiLogprob } from "../generation/openai-logprobs.ts";
import type { OutputDelta } from "../../lib/model/parsers/output-delta.ts";
import { sendError, sendJson, type OpenAiError } from "./openai-errors.ts";
import { ChunkWriter } from "./sse-writer.ts";
import type { ApiDialect, ResponderOptions, TurnEnd, TurnResponder } from "./turn-responder.ts";

export function chatCompletionsApi(body: ChatRequest): ApiDialect {
  return { sendError, responder: (options) => new ChatResponder(body, options) };
}

class ChatResponder implements TurnResponder {
  // 24 hex characters from a v4 UUID (Node draws those from a pooled random buffer: no getrandom call per request)
  private readonly id = `chatcmpl-${randomUUID().replaceAll("-", "").slice(0, 24)}`;
  private readonly writer: ChunkWriter | null;
  private readonly wholeLogprobs: OpenAiLogprob[] = []; // non-stream answers: every entry, in the message's choice

  constructor(
    private readonly body: ChatRequest,
    private readonly options: ResponderOptions,
  ) {
    this.writer = options.stream ? new ChunkWriter(options.response, this.id, options.model, { "x-session-id": options.sessionId }) : null;
  }

  get isStarted(): boolean {
    return this.writer?.isStarted ?? false;
  }

  start(): void {
    this.writer?.start();
  }

  logprobs(entries: readonly OpenAiLogprob[]): void {
    if (this.writer) this.writer.logprobs(entries);
    else for (const entry of entries) this.wholeLogprobs.push(entry);
  }

  deltas(deltas: readonly OutputDelta[]): void {
    this.writer?.deltas(deltas);
  }

  finish({ captured, usage: counts, weightVersion }: TurnEnd): void {
    const usage = { prompt_tokens: counts.promptTokens, completion_tokens: counts.completionTokens, total_tokens: counts.promptTokens + counts.completionTokens };
    if (this.writer) return this.writer.finish(captured.finishReason, this.body.stream_options?.include_usage ? usage : null);
    sendJson(
      this.options.response,
      200,
      {
        id: this.id,
        object: "chat.completion",
        created: Math.floor(this.options.startedAt / 1000),
        model: this.options.model,
        choices: [{ index: 0, message: captured.response, logprobs: this.body.logprobs === true ? { content: this.wholeLogprobs } : null, finish_reason: captured.finishReason }],
        usage,
        metadata: { weight_version: weightVersion, session_id: this.options.sessionId },
      },
      { "x-session-id": this.options.sessionId },
    );
  }

  fail(error: OpenAiError): void {
    // (a stream the engine never accepted has sent nothing yet: it gets the HTTP status, 503 + Retry-After included)
    if (this.writer?.isStarted) this.writer.fail(error);
    else sendError(this.options.response, error);
  }
}
