// What Codex, Claude Code and Qwen Code say about their own requests, read where the proxy's turn decision would otherwise
// guess: each client's conversation id, and the side requests it sends (compaction, titles, probes). Pure; ignores HTTP.
import type { ChatMessage, ChatRequest } from "../../../contracts/chat.ts";
import type { MessagesRequest } from "../../../contracts/messages.ts";
import type { ResponsesRequest } from "../../../contracts/responses.ts";
import { flattenContent } from "../../../lib/model/chat-template.ts";
import type { ClientSignals } from "../../sessions/turn-decision.ts";

type Headers = Record<string, string | string[] | undefined>;

/** Codex's compaction prompt, sent as the last user input (codex-rs core/templates/compact/prompt.md). */
const CODEX_SIDE_OPENINGS = ["You are performing a CONTEXT CHECKPOINT COMPACTION"];

/**
 * Claude Code's own utility prompts: compaction (as the last user message, or a text block of it: 2.1 opens it with
 * "CRITICAL: Respond with TEXT ONLY…" and may append it to the user's last words), topic and title detection (as system).
 */
const CLAUDE_CODE_SIDE_OPENINGS = [
  "Your task is to create a detailed summary of the conversation so far",
  "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.",
  "Analyze if this message indicates a new conversation topic",
  "Summarize this coding conversation",
  "Please write a 5-10 word title",
];

/**
 * Codex sends its conversation id as a bare `session_id` (0.171: `session-id`) header (OpenClaw's `<id>:<n>` form keeps its own meaning)
 * and as `prompt_cache_key`; its compaction request is a user input that opens with the compaction prompt.
 */
export function codexSignals(headers: Headers, body: ResponsesRequest, chat: ChatRequest): ClientSignals {
  const header = firstValue(headers["session_id"]) ?? firstValue(headers["session-id"]); // (0.171 sends session-id)
  const cacheKey = typeof body.prompt_cache_key === "string" && body.prompt_cache_key.trim() !== "" ? body.prompt_cache_key.trim() : undefined;
  const conversation =
    header !== undefined && !/:\d+$/.test(header) ? { id: header, from: "Codex's session_id header" } : cacheKey !== undefined ? { id: cacheKey, from: "body prompt_cache_key" } : undefined;
  const opening = matchedOpening(lastUserText(chat.messages), CODEX_SIDE_OPENINGS);
  return { ...(conversation ? { conversation } : {}), ...(opening ? { sideRequest: `the last user input opens with Codex's side prompt "${opening}"` } : {}) };
}

/**
 * Claude Code names its session in metadata.user_id (`…_session_<uuid>`, or JSON with session_id); its side requests
 * are the small/fast model's (not the served model, no tools), probes of max_tokens 1, and its utility prompts.
 */
export function claudeCodeSignals(body: MessagesRequest, chat: ChatRequest, mainModels: readonly string[]): ClientSignals {
  const userId = body.metadata?.user_id ?? "";
  const sessionId = /_session_([0-9A-Za-z-]+)$/.exec(userId)?.[1] ?? jsonSessionId(userId);
  const conversation = sessionId ? { id: sessionId, from: "Claude Code's metadata.user_id" } : undefined;
  const hasTools = (chat.tools?.length ?? 0) > 0;
  const system = chat.messages[0]?.role === "system" ? flattenContent(chat.messages[0].content) : "";
  const opening = [system, ...lastUserParts(chat.messages)].map((text) => matchedOpening(text, CLAUDE_CODE_SIDE_OPENINGS)).find((found) => found !== undefined);
  const sideRequest =
    body.max_tokens <= 1
      ? "max_tokens 1 (a probe, such as Claude Code's quota check)"
      : !hasTools && !mainModels.includes(body.model)
        ? `model ${body.model} is not the served model ${mainModels.join(" / ")} and the request has no tools (a client's small/fast model)`
        : opening
          ? `opens with Claude Code's side prompt "${opening}"`
          : undefined;
  return { ...(conversation ? { conversation } : {}), ...(sideRequest ? { sideRequest } : {}) };
}

/**
 * Qwen Code's own prompts: compression (the last user message of a request with tools, then the system prompt of one
 * without) and its managed-memory extraction subagent (the system prompt, after a conversation turn).
 */
const QWEN_CODE_SIDE_OPENINGS = [
  "You are the component that summarizes a conversation when its context window is about to overflow",
  "You are now acting as the managed memory extraction subagent",
];

/**
 * Qwen Code (chat completions, `User-Agent: QwenCode/<version>`) names no conversation; its side requests are the
 * compression of its history (`/compress`, or when the context fills) and its memory extraction after a turn.
 */
export function qwenCodeSignals(headers: Headers, chat: ChatRequest): ClientSignals {
  if (!(firstValue(headers["user-agent"]) ?? "").startsWith("QwenCode/")) return {};
  const system = chat.messages[0]?.role === "system" ? flattenContent(chat.messages[0].content) : "";
  const opening = [system, ...lastUserParts(chat.messages)].map((text) => matchedOpening(text, QWEN_CODE_SIDE_OPENINGS)).find((found) => found !== undefined);
  return opening ? { sideRequest: `opens with Qwen Code's side prompt "${opening}"` } : {};
}

function jsonSessionId(text: string): string | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const value = (JSON.parse(text) as { session_id?: unknown }).session_id;
    return typeof value === "string" && value !== "" ? value : undefined;
  } catch {
    return undefined;
  }
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === "" ? undefined : text.trim();
}

function lastUserText(messages: readonly ChatMessage[]): string {
  const last = messages.at(-1);
  return last?.role === "user" ? flattenContent(last.content) : "";
}

/** The last user message's text blocks, each on its own (a side prompt may follow the user's words in one message). */
function lastUserParts(messages: readonly ChatMessage[]): string[] {
  const last = messages.at(-1);
  if (last?.role !== "user") return [];
  return typeof last.content === "string" ? [last.content] : last.content.map((part) => flattenContent([part]));
}

function matchedOpening(text: string, openings: readonly string[]): string | undefined {
  const start = text.trimStart();
  return openings.find((opening) => start.startsWith(opening));
}
