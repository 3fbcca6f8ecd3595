// Renders a model's jinja chat template (tokenizer_config.json) with @huggingface/jinja, the way
// transformers' apply_chat_template does. Message normalisation for the template lives here too.
import { Template } from "@huggingface/jinja";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import type { TokenizerFiles } from "./model-files.ts";

export interface RenderOptions {
  tools?: Tool[] | null;
  addGenerationPrompt: boolean;
  /** Extra template variables (chat_template_kwargs, e.g. enable_thinking). */
  extra?: Record<string, unknown>;
}

/** Template-ready message: content flattened to a string (text parts joined), developer → system. */
export type TemplateMessage = Record<string, unknown> & { role: string; content: string };

export function flattenContent(content: ChatMessage["content"]): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? (part as { text: string }).text : "")).join("");
}

export function toTemplateMessages(messages: readonly ChatMessage[]): TemplateMessage[] {
  return messages.map((message) => {
    const out: TemplateMessage = { ...(message as Record<string, unknown>), role: message.role === "developer" ? "system" : message.role, content: flattenContent(message.content) };
    if (message.role === "assistant" && message.tool_calls) {
      out.tool_calls = message.tool_calls.map((call) => ({
        ...call,
        function: { name: call.function.name, arguments: parseArguments(call.function.arguments) },
      }));
    }
    return out;
  });
}

/** Templates print `arguments | tojson`; HF passes a dict there, so decode the JSON string when it is one. */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export class ChatTemplate {
  private readonly template: Template;
  private readonly specials: Record<string, unknown>;

  constructor(files: TokenizerFiles) {
    const source = pickTemplate(files.tokenizerConfig.chat_template);
    if (!source) {
      throw new OpenclawRlError("TEMPLATE_ERROR", `tokenizer_config.json of ${files.source} has no chat_template`, {
        path: files.source,
        hint: "use a chat model checkpoint, or proxy.mode: passthrough",
      });
    }
    this.template = new Template(source);
    const config = files.tokenizerConfig;
    this.specials = { bos_token: tokenText(config.bos_token), eos_token: tokenText(config.eos_token), pad_token: tokenText(config.pad_token) };
  }

  render(messages: readonly ChatMessage[], options: RenderOptions): string {
    const templateMessages = toTemplateMessages(messages);
    try {
      return this.template.render({
        ...this.specials,
        ...options.extra,
        messages: templateMessages,
        tools: options.tools && options.tools.length > 0 ? options.tools : undefined,
        add_generation_prompt: options.addGenerationPrompt,
      });
    } catch (cause) {
      throw new OpenclawRlError("TEMPLATE_ERROR", `chat template failed: ${(cause as Error).message}`, { cause });
    }
  }
}

function pickTemplate(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const named = value.find((entry) => entry && (entry as { name?: string }).name === "default") ?? value[0];
    return named ? String((named as { template: string }).template) : null;
  }
  return null;
}

function tokenText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "content" in value) return String((value as { content: string }).content);
  return undefined;
}
