// Request → prompt ids: renders the chat template with tools and chat_template_kwargs, then tokenizes it
// segment by segment (cached), sending large first-time segments to the encode pool. Ignores generation.
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import type { ChatTemplate } from "../tokenizer/chat-template.ts";
import { LruCache, type ModelTokenizer } from "../tokenizer/model-tokenizer.ts";
import type { EncodePool } from "./encode-pool.ts";

export interface BuiltPrompt {
  text: string;
  ids: number[];
  /** The generation prompt leaves the model inside <think> (Qwen3 thinking templates). */
  startsInReasoning: boolean;
}

/** Segments at least this long and not cached yet are encoded in a worker. */
export const LARGE_SEGMENT_CHARS = 4096;

export class PromptBuilder {
  private readonly splitter: RegExp | null;
  private readonly large = new LruCache<string, readonly number[]>(256);
  private readonly inFlight = new Map<string, Promise<readonly number[]>>();

  constructor(
    private readonly template: ChatTemplate,
    private readonly tokenizer: ModelTokenizer,
    private readonly pool: EncodePool | null,
  ) {
    const added = [...tokenizer.addedTokens.keys()].sort((a, b) => b.length - a.length);
    this.splitter = added.length > 0 ? new RegExp(`(${added.map(escapeRegExp).join("|")})`) : null;
  }

  render(messages: readonly ChatMessage[], tools: readonly Tool[] | null | undefined, extra: Record<string, unknown> | undefined): string {
    return this.template.render(messages, { tools: tools ? [...tools] : null, addGenerationPrompt: true, extra });
  }

  async build(messages: readonly ChatMessage[], tools: readonly Tool[] | null | undefined, extra: Record<string, unknown> | undefined): Promise<BuiltPrompt> {
    const text = this.render(messages, tools, extra);
    const ids = await this.encode(text);
    return { text, ids, startsInReasoning: endsInsideReasoning(text) };
  }

  /** Same ids as ModelTokenizer.encode(text); large uncached segments are encoded off the event loop. */
  async encode(text: string): Promise<number[]> {
    if (!this.splitter || !this.pool) return this.tokenizer.encode(text);
    const pieces = text.split(this.splitter);
    const pending: Promise<readonly number[]>[] = [];
    const parts: (readonly number[] | number | Promise<readonly number[]>)[] = [];
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      const addedId = this.tokenizer.addedTokens.get(piece);
      if (addedId !== undefined) {
        parts.push(addedId);
      } else if (piece.length >= LARGE_SEGMENT_CHARS) {
        const cached = this.large.get(piece);
        if (cached) parts.push(cached);
        else {
          const job = this.encodeLarge(piece);
          pending.push(job);
          parts.push(job);
        }
      } else {
        parts.push(this.tokenizer.encode(piece));
      }
    }
    if (pending.length > 0) await Promise.all(pending);
    const ids: number[] = [];
    for (const part of parts) {
      if (typeof part === "number") ids.push(part);
      else for (const id of part instanceof Promise ? await part : part) ids.push(id);
    }
    return ids;
  }

  private encodeLarge(piece: string): Promise<readonly number[]> {
    const running = this.inFlight.get(piece);
    if (running) return running;
    const job = this.pool!.encode(piece)
      .catch(() => this.tokenizer.encode(piece)) // no worker: encode here rather than fail the request
      .then((ids) => {
        this.large.set(piece, ids);
        return ids;
      })
      .finally(() => this.inFlight.delete(piece));
    this.inFlight.set(piece, job);
    return job;
  }
}

/** True when the rendered prompt's last assistant opening is followed by an unclosed <think>. */
export function endsInsideReasoning(prompt: string): boolean {
  const tail = prompt.slice(Math.max(0, prompt.lastIndexOf("<|im_start|>assistant")));
  return tail.lastIndexOf("<think>") > tail.lastIndexOf("</think>");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
