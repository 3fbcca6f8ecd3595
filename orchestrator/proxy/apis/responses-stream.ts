// The Responses API's answer to a turn: the response object, streamed as OpenAI's events (response.created …
// output items with their deltas … response.completed) or whole; kept for previous_response_id unless store is false.
// Ignores generation; errors keep OpenAI's shape (openai-errors.ts).
import { randomUUID } from "node:crypto";
import type { ChatMessage } from "../../../contracts/chat.ts";
import type { ResponsesRequest } from "../../../contracts/responses.ts";
import type { OutputDelta } from "../../../lib/model/parsers/output-delta.ts";
import { sendError, sendJson, type OpenAiError } from "../openai-errors.ts";
import type { ApiDialect, ResponderOptions, TurnEnd, TurnResponder } from "../turn-responder.ts";
import { EventStream } from "./event-stream.ts";
import { OutputItems, type OutputItem } from "./output-items.ts";
import type { ResponseStore } from "./response-store.ts";

export function responsesApi(body: ResponsesRequest, conversation: readonly ChatMessage[], store: ResponseStore): ApiDialect {
  return { sendError, responder: (options) => new ResponsesResponder(body, conversation, store, options) };
}

const newId = (prefix: string): string => `${prefix}_${randomUUID().replaceAll("-", "")}`;

class ResponsesResponder implements TurnResponder {
  private readonly id = newId("resp");
  private readonly events: EventStream | null;
  private readonly items: OutputItems;
  private readonly itemIds: string[] = [];
  private sequence = 0;

  constructor(
    private readonly body: ResponsesRequest,
    private readonly conversation: readonly ChatMessage[],
    private readonly store: ResponseStore,
    private readonly options: ResponderOptions,
  ) {
    this.events = options.stream ? new EventStream(options.response, { "x-session-id": options.sessionId }) : null;
    this.items = new OutputItems(this.events ? { opened: (item, at) => this.opened(item, at), appended: (item, at, text) => this.appended(item, at, text), closed: (item, at) => this.closed(item, at) } : null);
  }

  get isStarted(): boolean {
    return this.events?.isStarted ?? false;
  }

  start(): void {
    if (!this.events || this.events.isStarted) return;
    this.events.start();
    const response = this.snapshot("in_progress", []);
    this.send("response.created", { response });
    this.send("response.in_progress", { response });
  }

  logprobs(): void {}

  deltas(deltas: readonly OutputDelta[]): void {
    if (deltas.length === 0) return;
    this.start();
    this.items.push(deltas);
  }

  finish({ captured, usage }: TurnEnd): void {
    this.start();
    this.items.close();
    if (this.body.store !== false) this.store.keep(this.id, [...this.conversation, captured.response as ChatMessage]);
    const length = captured.finishReason === "length";
    const response = {
      ...this.snapshot(length ? "incomplete" : "completed", this.items.items.map((item, at) => this.itemBody(item, at, "completed"))),
      incomplete_details: length ? { reason: "max_output_tokens" } : null,
      usage: {
        input_tokens: usage.promptTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.completionTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.promptTokens + usage.completionTokens,
      },
    };
    if (!this.events) return sendJson(this.options.response, 200, response, { "x-session-id": this.options.sessionId });
    this.send(length ? "response.incomplete" : "response.completed", { response });
    this.events.end();
  }

  /** Before anything went out: the HTTP error; mid-stream: response.failed with the error (as OpenAI ends a failed stream). */
  fail(error: OpenAiError): void {
    if (!this.events?.isStarted) return sendError(this.options.response, error);
    this.items.close();
    const response = { ...this.snapshot("failed", this.items.items.map((item, at) => this.itemBody(item, at, "incomplete"))), error: { code: error.code ?? "server_error", message: error.message } };
    this.send("response.failed", { response });
    this.events.end();
  }

  private snapshot(status: string, output: unknown[]): Record<string, unknown> {
    const body = this.body;
    return {
      id: this.id,
      object: "response",
      created_at: Math.floor(this.options.startedAt / 1000),
      status,
      model: this.options.model,
      output,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: body.previous_response_id ?? null,
      temperature: body.temperature ?? null,
      top_p: body.top_p ?? null,
      tool_choice: body.tool_choice ?? "auto",
      tools: body.tools ?? [],
      store: body.store ?? true,
      metadata: body.metadata ?? {},
      reasoning: body.reasoning ?? null,
      text: { format: { type: "text" } },
      truncation: "disabled",
      usage: null,
    };
  }

  /** An output item as the API writes it (the text parts whole: in output_item.added they are still empty). */
  private itemBody(item: OutputItem, at: number, status: "in_progress" | "completed" | "incomplete"): Record<string, unknown> {
    const id = (this.itemIds[at] ??= newId(item.kind === "reasoning" ? "rs" : item.kind === "text" ? "msg" : "fc"));
    if (item.kind === "reasoning") return { id, type: "reasoning", summary: [], content: status === "in_progress" ? [] : [this.part(item)] };
    if (item.kind === "text") return { id, type: "message", status, role: "assistant", content: status === "in_progress" ? [] : [this.part(item)] };
    return { id, type: "function_call", status, call_id: item.id, name: item.name, arguments: item.arguments };
  }

  private part(item: OutputItem): Record<string, unknown> {
    if (item.kind === "reasoning") return { type: "reasoning_text", text: item.text };
    return { type: "output_text", text: item.kind === "text" ? item.text : "", annotations: [], logprobs: [] };
  }

  private opened(item: OutputItem, at: number): void {
    this.send("response.output_item.added", { output_index: at, item: this.itemBody(item, at, "in_progress") });
    if (item.kind !== "tool-call") {
      const empty = item.kind === "reasoning" ? { type: "reasoning_text", text: "" } : { type: "output_text", text: "", annotations: [], logprobs: [] };
      this.send("response.content_part.added", { item_id: this.itemIds[at], output_index: at, content_index: 0, part: empty });
    }
  }

  private appended(item: OutputItem, at: number, text: string): void {
    const where = { item_id: this.itemIds[at], output_index: at };
    if (item.kind === "tool-call") this.send("response.function_call_arguments.delta", { ...where, delta: text });
    else if (item.kind === "reasoning") this.send("response.reasoning_text.delta", { ...where, content_index: 0, delta: text });
    else this.send("response.output_text.delta", { ...where, content_index: 0, delta: text, logprobs: [] });
  }

  private closed(item: OutputItem, at: number): void {
    const where = { item_id: this.itemIds[at], output_index: at };
    if (item.kind === "tool-call") this.send("response.function_call_arguments.done", { ...where, name: item.name, arguments: item.arguments });
    else {
      if (item.kind === "reasoning") this.send("response.reasoning_text.done", { ...where, content_index: 0, text: item.text });
      else this.send("response.output_text.done", { ...where, content_index: 0, text: item.text, logprobs: [] });
      this.send("response.content_part.done", { ...where, content_index: 0, part: this.part(item) });
    }
    this.send("response.output_item.done", { output_index: at, item: this.itemBody(item, at, "completed") });
  }

  private send(type: string, fields: Record<string, unknown>): void {
    this.events?.send(type, { type, sequence_number: this.sequence++, ...fields });
  }
}
