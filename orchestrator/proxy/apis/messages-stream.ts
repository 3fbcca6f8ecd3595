// The Messages API's answer to a turn: Anthropic's stream events (message_start, content blocks with text /
// thinking / input_json deltas, message_delta with the stop reason, message_stop) or one message body; errors in
// Anthropic's shape (anthropic-errors.ts). Ignores generation.
import { randomUUID } from "node:crypto";
import type { FinishReason } from "../../../contracts/turn.ts";
import type { OutputDelta } from "../../../lib/model/parsers/output-delta.ts";
import { sendJson, type OpenAiError } from "../openai-errors.ts";
import type { ApiDialect, ResponderOptions, TurnEnd, TurnResponder } from "../turn-responder.ts";
import { anthropicErrorBody, sendAnthropicError } from "./anthropic-errors.ts";
import { EventStream } from "./event-stream.ts";
import { OutputItems, type OutputItem } from "./output-items.ts";

export const messagesApi: ApiDialect = { sendError: sendAnthropicError, responder: (options) => new MessagesResponder(options) };

/** Anthropic's stop reason for the turn's finish reason (a stop string the client asked for: stop_sequence). */
export function stopReason(finish: FinishReason, matchedStop: string | null): string {
  if (finish === "tool_calls") return "tool_use";
  if (finish === "length") return "max_tokens";
  return matchedStop !== null ? "stop_sequence" : "end_turn";
}

class MessagesResponder implements TurnResponder {
  private readonly id = `msg_${randomUUID().replaceAll("-", "")}`;
  private readonly events: EventStream | null;
  private readonly items: OutputItems;

  constructor(private readonly options: ResponderOptions) {
    this.events = options.stream ? new EventStream(options.response, { "x-session-id": options.sessionId }) : null;
    this.items = new OutputItems(
      this.events
        ? {
            opened: (item, index) => this.send("content_block_start", { index, content_block: this.block(item, true) }),
            appended: (item, index, text) => this.send("content_block_delta", { index, delta: this.delta(item, text) }),
            closed: (_item, index) => this.send("content_block_stop", { index }),
          }
        : null,
    );
  }

  get isStarted(): boolean {
    return this.events?.isStarted ?? false;
  }

  start(): void {
    if (!this.events || this.events.isStarted) return;
    this.events.start();
    this.send("message_start", { message: this.message([], null, null, 0) });
    this.send("ping", {});
  }

  logprobs(): void {}

  deltas(deltas: readonly OutputDelta[]): void {
    if (deltas.length === 0) return;
    this.start();
    this.items.push(deltas);
  }

  finish({ captured, usage, matchedStop }: TurnEnd): void {
    this.start();
    this.items.close();
    const reason = stopReason(captured.finishReason, matchedStop);
    const sequence = reason === "stop_sequence" ? matchedStop : null;
    if (!this.events) {
      const content = this.items.items.map((item) => this.block(item, false));
      return sendJson(this.options.response, 200, this.message(content, reason, sequence, usage.completionTokens), { "x-session-id": this.options.sessionId });
    }
    this.send("message_delta", { delta: { stop_reason: reason, stop_sequence: sequence }, usage: { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens } });
    this.send("message_stop", {});
    this.events.end();
  }

  /** Before anything went out: the HTTP error; mid-stream: an `error` event (as Anthropic ends a failed stream). */
  fail(error: OpenAiError): void {
    if (!this.events?.isStarted) return sendAnthropicError(this.options.response, error);
    this.events.send("error", anthropicErrorBody(error));
    this.events.end();
  }

  private message(content: unknown[], reason: string | null, sequence: string | null, outputTokens: number): Record<string, unknown> {
    return {
      id: this.id,
      type: "message",
      role: "assistant",
      model: this.options.model,
      content,
      stop_reason: reason,
      stop_sequence: sequence,
      usage: { input_tokens: this.options.promptTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
  }

  /** A content block, empty as content_block_start opens it or whole as the message body holds it. */
  private block(item: OutputItem, opening: boolean): Record<string, unknown> {
    if (item.kind === "reasoning") return { type: "thinking", thinking: opening ? "" : item.text, signature: "" };
    if (item.kind === "text") return { type: "text", text: opening ? "" : item.text };
    return { type: "tool_use", id: item.id, name: item.name, input: opening ? {} : toolInput(item.arguments) };
  }

  private delta(item: OutputItem, text: string): Record<string, unknown> {
    if (item.kind === "reasoning") return { type: "thinking_delta", thinking: text };
    if (item.kind === "text") return { type: "text_delta", text };
    return { type: "input_json_delta", partial_json: text };
  }

  private send(type: string, fields: Record<string, unknown>): void {
    this.events?.send(type, { type, ...fields });
  }
}

/** The call's arguments as the object tool_use carries ({} for none); text that is not a JSON object stays as it is. */
function toolInput(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
