// Writes OpenAI chat.completion.chunk events as server-sent events, shaped like SGLang's own chat
// streaming (role chunk first, deltas, finish chunk, optional usage chunk, [DONE]). Ignores generation.
import type { ServerResponse } from "node:http";
import type { OpenAiLogprob } from "../generation/openai-logprobs.ts";
import type { OutputDelta } from "../../lib/model/parsers/output-delta.ts";
import { errorBody, type OpenAiError } from "./openai-errors.ts";

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** An SSE comment line this often while nothing else is written, so idle timeouts of clients (undici: 300 s) never fire during a long weight sync. */
export const HEARTBEAT_MS = 15_000;

export class ChunkWriter {
  private readonly created = Math.floor(Date.now() / 1000);
  private started = false;
  private heartbeat: NodeJS.Timeout | null = null;
  /** Log-prob entries not sent yet: they go out on the next chunk written (as SGLang does), else on the finish chunk. */
  private pendingLogprobs: OpenAiLogprob[] = [];
  /**
   * Every chunk's event up to its delta, made once: what JSON.stringify writes for the id, object, created and model
   * fields, which no chunk changes (a token's event is then its delta's JSON and a fixed tail, not a whole object's).
   */
  private readonly chunkHead: string;

  constructor(
    private readonly response: ServerResponse,
    private readonly id: string,
    private readonly model: string,
    private readonly extraHeaders: Record<string, string>,
  ) {
    this.chunkHead = `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${this.created},"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":`;
  }

  /** Sends the headers and the role chunk. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...this.extraHeaders });
    this.response.socket?.setNoDelay(true);
    this.chunk({ role: "assistant", content: "" }, null, false);
    this.heartbeat = setInterval(() => {
      if (!this.response.writableEnded && !this.response.destroyed) this.response.write(": keep-alive\n\n");
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
    this.response.once("close", () => this.stopHeartbeat());
  }

  get isStarted(): boolean {
    return this.started;
  }

  /** Queues the log-prob entries of tokens just generated (a request with `logprobs: true`). */
  logprobs(entries: readonly OpenAiLogprob[]): void {
    for (const entry of entries) this.pendingLogprobs.push(entry);
  }

  deltas(deltas: readonly OutputDelta[]): void {
    if (deltas.length === 0) return;
    this.start();
    for (const delta of deltas) {
      if (delta.kind === "content") this.chunk({ content: delta.text }, null);
      else if (delta.kind === "reasoning") this.chunk({ reasoning_content: delta.text }, null);
      else if (delta.kind === "tool-call-start") {
        this.chunk({ tool_calls: [{ index: delta.index, id: delta.id, type: "function", function: { name: delta.name, arguments: "" } }] }, null);
      } else this.chunk({ tool_calls: [{ index: delta.index, function: { arguments: delta.text } }] }, null);
    }
  }

  finish(finishReason: string, usage: Usage | null): void {
    this.start();
    this.stopHeartbeat();
    this.chunk({}, finishReason);
    if (usage) this.write({ id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [], usage });
    this.response.end("data: [DONE]\n\n");
  }

  /** A mid-stream failure: an OpenAI error event, then [DONE] (the HTTP status is already 200). */
  fail(error: OpenAiError): void {
    this.start();
    this.stopHeartbeat();
    this.write(errorBody(error));
    this.response.end("data: [DONE]\n\n");
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** The event of one chunk: the same bytes as `data: ` + JSON.stringify of the whole chunk object, then a blank line. */
  private chunk(delta: Record<string, unknown>, finishReason: string | null, withLogprobs = true): void {
    let logprobs = "null";
    if (withLogprobs && this.pendingLogprobs.length > 0) {
      logprobs = JSON.stringify({ content: this.pendingLogprobs });
      this.pendingLogprobs = [];
    }
    const finish = finishReason === null ? "null" : JSON.stringify(finishReason);
    this.send(`${this.chunkHead}${JSON.stringify(delta)},"logprobs":${logprobs},"finish_reason":${finish}}]}\n\n`);
  }

  private write(body: unknown): void {
    this.send(`data: ${JSON.stringify(body)}\n\n`);
  }

  private send(event: string): void {
    if (this.response.writableEnded || this.response.destroyed) return;
    this.response.write(event);
    this.heartbeat?.refresh();
  }
}
