// The next state of a session's previous main turn: the messages that follow that turn's assistant message
// in the new history (user reply or tool results), never an ephemeral context block. Pure functions.
import type { AssistantMessage, ChatMessage } from "../../contracts/chat.ts";
import type { NextState } from "../../contracts/turn.ts";
import { flattenContent } from "../../lib/model/chat-template.ts";
import { isEphemeral, normalizeMessage } from "./message-digest.ts";

export type NextStateMatch =
  | { found: true; assistantIndex: number; nextState: NextState | null }
  | { found: false };

/**
 * Finds `response` (the previous turn's assistant message) in `messages`: at the expected position
 * (`expectedIndex` = length of the previous turn's stable history), else as the history's last assistant message
 * (a client that drops or rewrites older messages moves it). An equal assistant message further back is never
 * taken: a retried or edited request repeats an earlier history, where the same words (a repeated tool call, a
 * short "Done.") answered an earlier turn, and what follows them there is not this turn's next state.
 */
export function extractNextState(messages: readonly ChatMessage[], response: AssistantMessage, expectedIndex: number): NextStateMatch {
  const target = normalizeMessage(response);
  const matches = (index: number): boolean => {
    const message = messages[index];
    return message !== undefined && message.role === "assistant" && normalizeMessage(message) === target;
  };
  let assistantIndex = -1;
  if (matches(expectedIndex)) assistantIndex = expectedIndex;
  else {
    let last = messages.length - 1;
    while (last >= 0 && messages[last]!.role !== "assistant") last--;
    if (last >= 0 && matches(last)) assistantIndex = last;
  }
  if (assistantIndex < 0) return { found: false };
  const following: ChatMessage[] = [];
  for (let index = assistantIndex + 1; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === "assistant") break;
    if (isEphemeral(message)) continue;
    if (message.role === "system" || message.role === "developer") continue;
    following.push(message);
  }
  if (following.length === 0) return { found: true, assistantIndex, nextState: null };
  const role = following.some((message) => message.role === "tool") && following[0]!.role === "tool" ? "tool" : "user";
  const text = following.map((message) => flattenContent(message.content)).join("\n");
  return { found: true, assistantIndex, nextState: { role, messages: following, text } };
}
