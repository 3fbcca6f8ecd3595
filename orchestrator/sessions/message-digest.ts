// Stable digests of chat messages and of history prefixes, normalised the way clients replay history:
// tool-call ids (OpenClaw rewrites call_2 → call2), reasoning, content-null-vs-"" and a user message's
// `<system-reminder>` parts (per-request context Qwen Code leaves out when it resumes a conversation) do not count. No state.
import { createHash } from "node:crypto";
import type { AssistantMessage, ChatMessage } from "../../contracts/chat.ts";
import { flattenContent } from "../../lib/model/chat-template.ts";
import { LruCache } from "../../lib/lru-cache.ts";

const INTERNAL_CONTEXT_MARKER = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";

/** OpenClaw's per-request context block: a user message opening with the internal-context marker. Never history. */
export function isEphemeral(message: ChatMessage): boolean {
  if (message.role !== "user") return false;
  const content = message.content;
  if (typeof content === "string") return content.startsWith(INTERNAL_CONTEXT_MARKER);
  const first = content[0];
  return first !== undefined && first.type === "text" && String(first.text).trimStart().startsWith(INTERNAL_CONTEXT_MARKER);
}

/** The request's messages without trailing ephemeral context blocks: the history a client keeps. */
export function stableHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  let end = messages.length;
  while (end > 0 && isEphemeral(messages[end - 1]!)) end--;
  return messages.slice(0, end);
}

/**
 * A message's text as history: a user message's text parts that are whole `<system-reminder>` blocks are left out.
 * Coding agents put per-request context there (Qwen Code's "The current date is …" reminder), and Qwen Code resumes a
 * conversation (`--resume`) with the earlier user messages without it: the same history, sent another way.
 */
function historyText(message: ChatMessage): string {
  const content = message.content as ChatMessage["content"];
  if (message.role !== "user" || typeof content === "string" || content === null || content === undefined) return flattenContent(content);
  return flattenContent(content.filter((part) => !(part.type === "text" && isReminder(String(part.text)))));
}

function isReminder(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.startsWith("<system-reminder>") && trimmed.endsWith("</system-reminder>");
}

/** Tool-call arguments as canonical JSON: no insignificant whitespace, object keys sorted (clients re-serialise them). */
function canonicalArguments(text: string): string {
  try {
    return JSON.stringify(sortedKeys(JSON.parse(text)));
  } catch {
    return text.trim();
  }
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  // (fromEntries defines each key as its own property: a "__proto__" key stays a key)
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]));
}

/** The replay-invariant form of a message. */
export function normalizeMessage(message: ChatMessage | AssistantMessage): string {
  if (message.role === "assistant") {
    const calls = (message.tool_calls ?? []).map((call) => [call.function.name, canonicalArguments(call.function.arguments)]);
    // with tool calls, some clients replay content as null: the calls identify the message
    const content = calls.length > 0 ? "" : flattenContent((message.content ?? null) as ChatMessage["content"]).trim();
    return JSON.stringify(["assistant", content, calls]);
  }
  return JSON.stringify([message.role, historyText(message)]);
}

export function digestMessage(message: ChatMessage | AssistantMessage): string {
  if (message.role === "assistant") return createHash("sha1").update(normalizeMessage(message)).digest("base64");
  // the common case (a 48 KB system prompt, user turns): hash role and text without building a JSON copy
  return createHash("sha1").update(message.role).update("\u0000").update(historyText(message)).digest("base64");
}

/**
 * digestMessage and prefixDigests with bounded caches: a session resends its whole history with every request, so
 * each message (a 48 KB system prompt, 60 short turns) and each prefix link is hashed once, then looked up (a string
 * comparison) instead of a SHA-1 pass per message and per prefix.
 */
/** Longest replay-invariant form cached by MessageDigests' short-message cache (capacity × this bounds its memory). */
const MAX_SHORT_KEY = 4096;

export class MessageDigests {
  private readonly byRole = new Map<string, LruCache<string, { digest: string; text: string }>>(); // long text, keyed by the content itself: no copies
  private readonly short: LruCache<string, string>; // short messages, keyed by their replay-invariant form
  private readonly links: LruCache<string, string>; // previous prefix digest + message digest → prefix digest

  constructor(
    private readonly minCachedChars = 2048,
    capacity = 16_384,
  ) {
    this.short = new LruCache(capacity);
    this.links = new LruCache(capacity * 4);
  }

  of(message: ChatMessage | AssistantMessage): string {
    const content = message.content;
    if (message.role === "assistant" || typeof content !== "string" || content.length < this.minCachedChars) {
      const key = message.role === "assistant" ? normalizeMessage(message) : `${message.role}\u0000${historyText(message)}`;
      if (key.length > MAX_SHORT_KEY) return digestMessage(message); // (keeps the cache's memory bounded)
      let digest = this.short.get(key);
      if (digest === undefined) this.short.set(key, (digest = digestMessage(message)));
      return digest;
    }
    return this.longEntry(message, content).digest;
  }

  /**
   * Same as of(message), and a long text (≥ minCachedChars) is swapped for the equal instance seen first (one
   * lookup for both). Open turns and records then share one copy of the 48 KB system prompt every request resends,
   * instead of one copy per session that outlives its request (old-generation garbage at every turn).
   */
  ofSharing(message: ChatMessage): string {
    const content = message.content;
    if (typeof content !== "string" || content.length < this.minCachedChars || message.role === "assistant") return this.of(message);
    const entry = this.longEntry(message, content);
    message.content = entry.text;
    return entry.digest;
  }

  private longEntry(message: ChatMessage | AssistantMessage, content: string): { digest: string; text: string } {
    let cache = this.byRole.get(message.role);
    if (!cache) this.byRole.set(message.role, (cache = new LruCache<string, { digest: string; text: string }>(512)));
    let entry = cache.get(content);
    if (entry === undefined) cache.set(content, (entry = { digest: digestMessage(message), text: content }));
    return entry;
  }

  /**
   * Same as prefixDigests(messageDigests); with `from` (the last prefix digest of messages before these), the chain
   * goes on from there: prefixes(b, prefixes(a).at(-1)) equals prefixes([...a, ...b]).slice(a.length).
   */
  prefixes(messageDigests: readonly string[], from = ""): string[] {
    const out: string[] = [];
    let previous = from;
    for (const digest of messageDigests) {
      const key = previous + digest; // base64 SHA-1 digests have a fixed length: the pair is unambiguous
      let next = this.links.get(key);
      if (next === undefined) this.links.set(key, (next = chainDigest(previous, digest)));
      out.push((previous = next));
    }
    return out;
  }
}

function chainDigest(previous: string, digest: string): string {
  return createHash("sha1").update(previous).update(digest).digest("base64");
}

/** prefix[i] = digest of messages[0..i] (inclusive), chained; with `from`, chained on from that prefix digest. */
export function prefixDigests(messageDigests: readonly string[], from = ""): string[] {
  const out: string[] = [];
  let previous = from;
  for (const digest of messageDigests) {
    previous = chainDigest(previous, digest);
    out.push(previous);
  }
  return out;
}

/** OpenClaw's `Runtime: … sessionId=<id>` line in the first user message. */
export function runtimeSessionId(messages: readonly ChatMessage[]): string | null {
  const first = messages.find((message) => message.role === "user" && !isEphemeral(message));
  if (!first) return null;
  const text = flattenContent(first.content);
  const match = /^Runtime:.*?\bsessionId=([^\s|]+)/m.exec(text);
  return match ? match[1]! : null;
}
