// The text a model wrote for an assistant reply, as its own chat template writes that reply: the render of the
// conversation with the reply, past the render of the prompt. For passthrough mode, which gets the reply parsed
// (content, reasoning, tool calls) and re-tokenizes it. Any family; null when the template does not render the
// prompt as a prefix of the conversation, or leaves out the reply's tool calls (then the caller writes it its own way).
import type { AssistantMessage, ChatMessage, Tool } from "../../contracts/chat.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";

export function assistantText(template: ChatTemplate, messages: readonly ChatMessage[], tools: readonly Tool[] | null, extra: Record<string, unknown> | undefined, reply: AssistantMessage): string | null {
  let prompt: string;
  let whole: string;
  try {
    prompt = template.render(messages, { tools: tools ? [...tools] : null, addGenerationPrompt: true, extra });
    whole = template.render([...messages, { ...reply } as ChatMessage], { tools: tools ? [...tools] : null, addGenerationPrompt: false, extra });
  } catch {
    return null;
  }
  if (!whole.startsWith(prompt)) return null;
  // (what follows the end-of-turn token, a newline between turns, is the template's, not the model's)
  const text = whole.slice(prompt.length).replace(/\s+$/, "");
  // a template that drops the reply's tool calls (DeepSeek-V3's own, given the content SGLang hands it) does not write it
  return (reply.tool_calls ?? []).every((call) => text.includes(call.function.name)) ? text : null;
}
