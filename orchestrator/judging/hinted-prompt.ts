// The teacher's prompt: the turn's messages with the hint appended to the user's last message (a
// `[user's hint / instruction]` block, as the reference), rendered with the policy's template and tokenized.
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import { flattenContent } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { isEphemeral } from "../sessions/message-digest.ts";

export const HINT_HEADER = "[user's hint / instruction]";

/**
 * A copy of `messages` with the hint appended to the last message the user wrote (or to the last message when the
 * user wrote none). OpenClaw's per-request context block is a user-role message too, but runtime data, "not
 * instructions": the hint goes to the user's own message before it.
 */
export function appendHint(messages: readonly ChatMessage[], hint: string): ChatMessage[] {
  const block = `${HINT_HEADER}\n${hint.trim()}`;
  const copy = messages.map((message) => ({ ...message }) as ChatMessage);
  if (copy.length === 0) return [{ role: "user", content: block }];
  let target = copy.length - 1;
  for (let index = copy.length - 1; index >= 0; index -= 1) {
    if (copy[index]!.role === "user" && !isEphemeral(copy[index]!)) {
      target = index;
      break;
    }
  }
  const message = copy[target]!;
  const content = flattenContent(message.content as ChatMessage["content"]);
  copy[target] = { ...message, content: `${content}\n\n${block}`.trim() } as ChatMessage;
  return copy;
}

/** Token ids of the hinted prompt, ending with the generation prompt, ready to be followed by the response ids. */
export function hintedPromptIds(
  messages: readonly ChatMessage[],
  tools: Tool[] | null,
  hint: string,
  template: ChatTemplate,
  tokenizer: ModelTokenizer,
  templateKwargs?: Record<string, unknown>,
): Promise<number[]> {
  const text = template.render(appendHint(messages, hint), { tools, addGenerationPrompt: true, extra: templateKwargs });
  return tokenizer.encode(text);
}
