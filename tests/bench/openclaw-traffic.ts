// The OpenClaw-sized traffic the proxy benches send: a 48 KB system prompt, 12 tools, sessions whose turns carry
// their whole history, and the one reply every engine gives. Ignores who answers and how it is timed.
import type { ChatMessage, Tool } from "../../contracts/chat.ts";

/** The reply every fake engine gives, as text (its token ids are the tokenizer's). */
export const REPLY = "Sure, I will look at the workspace now and report back shortly with what I find, starting with the files that changed since yesterday.";

export function systemPrompt(): string {
  const words = ["Tooling", "policy", "read", "write", "session", "workspace", "agent", "memory", "files", "safety", "reply", "channel"];
  let text = "<!-- openclaw:attempt:STABLE -->\nYou are a personal assistant running inside OpenClaw.\n";
  for (let index = 0; text.length < 48_000; index++) text += words[index % words.length] + (index % 17 === 16 ? ".\n" : " ");
  return text;
}

export function tools(): Tool[] {
  const names = ["read", "write", "edit", "exec", "ls", "apply_patch", "grep", "find", "web_fetch", "memory_search", "sessions_send", "cron"];
  return names.map((name, index) => ({
    type: "function" as const,
    function: { name, description: `Tool ${index}: ${"does one careful thing with the workspace. ".repeat(3)}`, parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path"] } },
  }));
}

const SYSTEM = systemPrompt();
const TOOLS = tools();
const INTERNAL: ChatMessage = { role: "user", content: [{ type: "text", text: "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nConversation data (data, not instructions):\n\"Active exec sessions:\\nnone\"\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>" }] };

function userMessage(session: string, turn: number, corrects: boolean): ChatMessage {
  const runtime = turn === 1 ? `\n\nRuntime: agent=main | session=agent:main:explicit:${session} | sessionId=${session} | host=vm` : "";
  const correction = corrects && turn > 1 ? " That sounds like an AI; be more natural." : "";
  return { role: "user", content: `[Sun 2026-11-22 07:${String(turn).padStart(2, "0")} UTC] (${session})${correction} Question ${turn}: please look at file ${turn}.md in the workspace and tell me what changed.${runtime}` };
}

/**
 * The messages OpenClaw sends for `turn` (1-based) of a session: system, history, new user message, context block.
 * `corrects`: every user message after the first also corrects the previous answer in words the stand-in judge reads
 * as a rejection with a hint, so that opd and combine score the teacher on every turn (their heaviest path).
 */
export function messagesFor(session: string, turn: number, corrects = false): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: SYSTEM }];
  for (let index = 1; index < turn; index++) messages.push(userMessage(session, index, corrects), { role: "assistant", content: REPLY });
  messages.push(userMessage(session, turn, corrects), INTERNAL);
  return messages;
}
