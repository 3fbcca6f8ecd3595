// Request → prompt ids: renders the chat template with tools and chat_template_kwargs (an interpreted template in
// the prompt pool's workers when they run, off the event loop), then tokenizes it with the session's memo and the
// segment cache (the library encodes off the event loop). Ignores generation.
import { namedFunction, toolsToRender } from "../../lib/model/tool-choice.ts";
import type { AssistantMessage, ChatMessage, ChatRequest, Tool } from "../../contracts/chat.ts";
import { isOpenclawRlError } from "../../contracts/errors.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { endsInsideReasoning } from "../../lib/model/parsers/answer-parser.ts";
import type { PromptPool } from "./prompt-pool.ts";

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
   * The prompt of a parsed request. A compiled template (microseconds) is rendered here; an interpreted one in a
   * worker from `raw` (the body, given up by the caller, sent without a copy) when the pool runs.
   */
  async buildRequest(request: ChatRequest, raw: Buffer | null, routeKey: string): Promise<BuiltPrompt> {
    const extra = request.chat_template_kwargs ?? undefined;
    // (a named tool_choice renders only that tool, as SGLang does: not the body's list)
    if (!this.template.isCompiled && raw && this.pool && namedFunction(request.tool_choice) === null) {
      const body = ownedArrayBuffer(raw);
      const text = await this.inPool(() => this.pool!.buildFromBody(routeKey, body));
      if (text !== null) return this.tokenize(text, routeKey);
    }
    return this.build(request.messages, toolsToRender(request.tools, request.tool_choice), extra, routeKey);
  }

  /** `routeKey` (the session id) keys the session's memo and sends its renders to the same worker. */
  async build(messages: readonly ChatMessage[], tools: readonly Tool[] | null | undefined, extra: Record<string, unknown> | undefined, routeKey = ""): Promise<BuiltPrompt> {
    const pooled = this.template.isCompiled ? null : await this.inPool(() => this.pool!.build(routeKey, messages, tools, extra));
    const text = pooled ?? this.template.render(messages, { tools: tools ? [...tools] : null, addGenerationPrompt: true, extra });
    return this.tokenize(text, routeKey);
  }

  private async tokenize(text: string, routeKey: string): Promise<BuiltPrompt> {
    const encoded = await this.tokenizer.encodePrompt(text, routeKey);
    return { ids: encoded.ids, idsJsonParts: encoded.idsJsonParts, startsInReasoning: endsInsideReasoning(text) };
  }

  /**
   * After a completed main turn: the segments its reply will have in the session's next prompt, encoded and cached
   * before that prompt comes, so that a long reply's encoding is not on the next request's critical path. The reply
   * is rendered as OpenClaw replays it (no reasoning; `content: null` beside tool calls) between a user message and
   * the message that will follow it (a tool result after tool calls, else the user's reply): compiled templates
   * render each message from its own fields and its place relative to the last user message, so its segments come
   * out as in the whole history. Compiled templates only; best effort (a reply replayed otherwise is just not
   * cached). Returns the segments encoded, if any.
   */
  warmReply(reply: AssistantMessage): Promise<string[]> {
    if (!this.template.isCompiled || !this.options.warmReplies) return Promise.resolve([]);
    const calls = reply.tool_calls ?? [];
    let chars = (reply.content ?? "").length;
    for (const call of calls) chars += call.function.arguments.length;
    if (chars < WARM_REPLY_CHARS) return Promise.resolve([]);
    const replayed: ChatMessage = calls.length > 0 ? { role: "assistant", content: null, tool_calls: calls } : { role: "assistant", content: reply.content ?? "" };
    const next: ChatMessage = calls.length > 0 ? { role: "tool", content: "", tool_call_id: calls[0]!.id } : { role: "user", content: "" };
    const text = this.template.render([{ role: "user", content: "" }, replayed, next], { tools: null, addGenerationPrompt: false });
    return this.tokenizer.warm(text).catch(() => []);
  }

  /** Same ids as ModelTokenizer.encode(text). */
  encode(text: string): Promise<number[]> {
    return this.tokenizer.encode(text);
  }

  /**
   * Checks once that the workers render exactly what this thread renders (same tokenizer files, same template);
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
      if (pooled === this.template.render(messages, { tools, addGenerationPrompt: true })) return true;
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
