// What the parsers of a family's markup share (output-parser.ts, harmony-parser.ts): the decoded text not read yet,
// read step by step until a step moves nothing, and the answer so far as deltas and as the assistant message.
import type { AssistantMessage, ToolCall } from "../../../contracts/chat.ts";
import type { OutputDelta } from "./output-delta.ts";
import { StreamedCalls } from "./streamed-calls.ts";

/** An answer's parts as the assistant message: content null beside tool calls when there is none, reasoning when there was any. */
export function answerMessage(content: string, reasoning: string | null, calls: readonly ToolCall[]): AssistantMessage {
  const message: AssistantMessage = { role: "assistant", content: content.length > 0 || calls.length === 0 ? content : null };
  if (reasoning !== null) message.reasoning_content = reasoning;
  if (calls.length > 0) message.tool_calls = calls.map((call) => ({ ...call, function: { ...call.function } }));
  return message;
}

export abstract class MarkupParser {
  /** Decoded text not read yet (what may start a tag or a client stop string waits here). */
  protected pending = "";
  /** The answer had reasoning, an empty one too (the message then carries reasoning_content). */
  protected reasoningSeen = false;
  protected readonly calls: ToolCall[] = [];
  /** The calls as sent (they append to `calls`). */
  protected readonly streamed = new StreamedCalls(this.calls);
  private reasoningText = "";
  private contentText = "";

  /** Feeds newly decoded text; returns the deltas that are certain now (partial tags are held back). */
  push(text: string): OutputDelta[] {
    this.pending += text;
    return this.drain(false);
  }

  /** End of output: flushes what was held back, less a client stop string the engine matched (sent because of no_stop_trim). */
  abstract finish(matchedStop?: string | null): OutputDelta[];

  get hasToolCalls(): boolean {
    return this.calls.length > 0;
  }

  /** The assistant message assembled from everything parsed so far (non-stream responses, records). */
  message(): AssistantMessage {
    return answerMessage(this.contentText, this.reasoningSeen ? this.reasoningText : null, this.calls);
  }

  /** One step of reading `pending` in the parser's present state. */
  protected abstract step(final: boolean): OutputDelta[];

  /** The parser's state besides `pending`: reading stops at a step that changes neither. */
  protected abstract get state(): unknown;

  protected drain(final: boolean): OutputDelta[] {
    const deltas: OutputDelta[] = [];
    for (let guard = 0; guard < 10_000; guard++) {
      const before = this.pending.length;
      const state = this.state;
      deltas.push(...this.step(final));
      if (this.pending.length === before && this.state === state) break;
    }
    return deltas;
  }

  /** Text held aside (a unit in progress) back in front of the pending text, less a matched stop string at its end. */
  protected unread(held: string, matchedStop: string | null | undefined): void {
    this.pending = held + this.pending;
    if (matchedStop && this.pending.endsWith(matchedStop)) this.pending = this.pending.slice(0, -matchedStop.length);
  }

  protected emitReasoning(text: string): OutputDelta[] {
    if (text.length === 0) return [];
    this.reasoningText += text;
    return [{ kind: "reasoning", text }];
  }

  protected emitContent(text: string): OutputDelta[] {
    if (text.length === 0) return [];
    this.contentText += text;
    return [{ kind: "content", text }];
  }
}
