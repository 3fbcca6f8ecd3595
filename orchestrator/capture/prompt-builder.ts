// Request → prompt ids: renders the chat template with tools and chat_template_kwargs, then tokenizes it (segment
// cache). In the prompt pool's workers when they run (off the event loop), inline otherwise. Ignores generation.
import type { AssistantMessage, ChatMessage, ChatRequest, Tool } from "../../contracts/chat.ts";
import { isOpenclawRlError } from "../../contracts/errors.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import type { PromptPool } from "./prompt-pool.ts";
import { plainArray } from "../../lib/worker-thread.ts";

/** Uncached text a prompt may have for it to be tokenized on the event loop rather than in a worker (BPE costs time per character). */
export const INLINE_ENCODE_CHARS = 1024;

/** Shortest reply (content and tool-call arguments, in characters) whose segments warmReply encodes ahead. */
export const WARM_REPLY_CHARS = 256;

export interface BuiltPrompt {
  /** Off the JS heap (a typed array's store): see CapturedTurn.promptIds. */
  ids: Int32Array;
  /** When known: cached JSON parts that, joined by commas, are the ids joined by commas (input_ids without brackets). */
  idsJsonParts?: readonly string[];
  /** The generation prompt leaves the model inside <think> (Qwen3 thinking templates). */
  startsInReasoning: boolean;
}

export class PromptBuilder {
  constructor(
    private readonly template: ChatTemplate,
    private readonly tokenizer: ModelTokenizer,
    private pool: PromptPool | null,
    private readonly options: { warmReplies: boolean } = { warmReplies: true },
  ) {}

  /**
   * The prompt of a parsed request. With a compiled template (microseconds) it is rendered here, and tokenized here
   * too unless more than INLINE_ENCODE_CHARS of it are not in the segment cache yet (a new 48 KB system prompt):
   * those segments go to a worker and into this thread's cache. Otherwise `raw` (the body, given up by the
   * caller) goes to a worker without a copy, which renders and tokenizes.
   */
  async buildRequest(request: ChatRequest, raw: Buffer | null, routeKey: string): Promise<BuiltPrompt> {
    if (this.template.isCompiled) return this.buildHere(request.messages, request.tools ?? null, (request.chat_template_kwargs ?? undefined), routeKey);
    const body = raw && this.pool ? ownedArrayBuffer(raw) : null;
    if (body) {
      const pooled = await this.inPool(() => this.pool!.buildFromBody(routeKey, body));
      if (pooled) return { ids: pooled.ids, startsInReasoning: endsInsideReasoning(pooled.tail) };
    }
    return this.build(request.messages, request.tools ?? null, (request.chat_template_kwargs ?? undefined), routeKey);
  }

  /** `routeKey` (the session id) sends a session's prompts to the same worker, whose cache holds its history. */
  async build(messages: readonly ChatMessage[], tools: readonly Tool[] | null | undefined, extra: Record<string, unknown> | undefined, routeKey = ""): Promise<BuiltPrompt> {
    const pooled = await this.inPool(() => this.pool!.build(routeKey, messages, tools, extra));
    if (pooled) return { ids: pooled.ids, startsInReasoning: endsInsideReasoning(pooled.tail) };
    const text = this.template.render(messages, { tools: tools ? [...tools] : null, addGenerationPrompt: true, extra });
    return { ids: Int32Array.from(this.tokenizer.encode(text)), startsInReasoning: endsInsideReasoning(text) };
  }

  private async buildHere(messages: readonly ChatMessage[], tools: readonly Tool[] | null, extra: Record<string, unknown> | undefined, routeKey: string): Promise<BuiltPrompt> {
    const text = this.template.render(messages, { tools: tools ? [...tools] : null, addGenerationPrompt: true, extra });
    let encoded = this.tokenizer.encodeWithin(text, this.pool ? INLINE_ENCODE_CHARS : Infinity, routeKey);
    if ("missing" in encoded) {
      await this.learnInPool(encoded.missing, routeKey);
      encoded = this.tokenizer.encodeWithin(text, Infinity, routeKey) as { ids: Int32Array; idsJsonParts: readonly string[] }; // (encodes here if the worker failed)
    }
    return { ids: encoded.ids, idsJsonParts: encoded.idsJsonParts, startsInReasoning: endsInsideReasoning(text) };
  }

  /**
   * After a completed main turn: the segments its reply will have in the session's next prompt, encoded by a prompt
   * worker and learned into this thread's cache before that prompt comes, so that a long reply's BPE is not on the next
   * request's critical path. The reply is rendered as OpenClaw
   * replays it (no reasoning; `content: null` beside tool calls) between a user message and the message that will
   * follow it (a tool result after tool calls, else the user's reply): compiled templates render each message from
   * its own fields and its place relative to the last user message, so its segments come out as in the whole
   * history. Compiled templates and a running pool only; best effort (a reply replayed otherwise is just not cached).
   * Returns the segments sent to the worker, if any.
   */
  warmReply(reply: AssistantMessage, routeKey: string): Promise<string[]> {
    if (!this.pool || !this.template.isCompiled || !this.options.warmReplies) return Promise.resolve([]);
    const calls = reply.tool_calls ?? [];
    let chars = (reply.content ?? "").length;
    for (const call of calls) chars += call.function.arguments.length;
    if (chars < WARM_REPLY_CHARS) return Promise.resolve([]);
    const replayed: ChatMessage = calls.length > 0 ? { role: "assistant", content: null, tool_calls: calls } : { role: "assistant", content: reply.content ?? "" };
    const next: ChatMessage = calls.length > 0 ? { role: "tool", content: "", tool_call_id: calls[0]!.id } : { role: "user", content: "" };
    const text = this.template.render([{ role: "user", content: "" }, replayed, next], { tools: null, addGenerationPrompt: false });
    const encoded = this.tokenizer.encodeWithin(text, 0);
    if (!("missing" in encoded)) return Promise.resolve([]);
    const missing = encoded.missing;
    return this.learnInPool(missing, routeKey).then(
      (learned) => (learned ? missing : []),
      () => [],
    );
  }

  /** Has a prompt worker encode `segments` and learns them into this thread's cache; false when no worker did. */
  private async learnInPool(segments: string[], routeKey: string): Promise<boolean> {
    const ids = await this.inPool(() => this.pool!.encodeSegments(routeKey, segments));
    if (ids) this.tokenizer.learnSegments(segments, ids);
    return ids !== null;
  }

  /** Same ids as ModelTokenizer.encode(text). */
  async encode(text: string, routeKey = ""): Promise<number[]> {
    const pooled = await this.inPool(() => this.pool!.encode(routeKey, text));
    return pooled ? plainArray(pooled.ids) : this.tokenizer.encode(text);
  }

  /**
   * Checks once that the workers build exactly what this thread builds (same tokenizer files, same template);
   * on any difference the pool is closed and prompts are built inline. Returns whether the pool is used.
   */
  async verifyPool(): Promise<boolean> {
    if (!this.pool || !(await this.pool.ready())) return false;
    const tools: Tool[] = [{ type: "function", function: { name: "probe", description: "Probe tool", parameters: { type: "object", properties: { path: { type: "string" } } } } }];
    const messages: ChatMessage[] = [
      { role: "system", content: "You are a probe. <!-- check -->" },
      { role: "user", content: "Hello, 世界 <think>?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "probe", arguments: '{"path": "."}' } }] },
      { role: "tool", content: "ok", tool_call_id: "call_1" },
    ];
    try {
      const pooled = await this.pool.build("probe", messages, tools, undefined);
      const inline = this.tokenizer.encode(this.template.render(messages, { tools, addGenerationPrompt: true }));
      if (pooled.ids.length === inline.length && pooled.ids.every((id, index) => id === inline[index])) return true;
    } catch {
      // fall through: disable the pool
    }
    await this.pool.close();
    this.pool = null;
    return false;
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  private async inPool<T>(job: () => Promise<T>): Promise<T | null> {
    if (!this.pool || !(await this.pool.ready())) return null;
    try {
      return await job();
    } catch (error) {
      if (isOpenclawRlError(error) && error.code === "TEMPLATE_ERROR") throw error;
      return null; // a worker died: build inline
    }
  }
}

/** The bytes of `buffer` as an ArrayBuffer of their own (transferable): the buffer's own memory when it spans it all. */
function ownedArrayBuffer(buffer: Buffer): ArrayBuffer {
  const whole = buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength && buffer.buffer instanceof ArrayBuffer;
  return whole ? (buffer.buffer as ArrayBuffer) : (new Uint8Array(buffer).slice().buffer as ArrayBuffer);
}

/** True when the rendered prompt's last assistant opening is followed by an unclosed <think>. */
export function endsInsideReasoning(prompt: string): boolean {
  const tail = prompt.slice(-200);
  const opening = tail.lastIndexOf("<|im_start|>assistant");
  const generation = opening >= 0 ? tail.slice(opening) : tail;
  return generation.lastIndexOf("<think>") > generation.lastIndexOf("</think>");
}
