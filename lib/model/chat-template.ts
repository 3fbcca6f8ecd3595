// Renders a model's jinja chat template (tokenizer_config.json) with @huggingface/jinja, the way
// transformers' apply_chat_template does. Message normalisation for the template lives here too.
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import { chatTemplateText, specialTokenText, type TokenizerFiles } from "./model-files.ts";
import { decodePythonJson } from "./python-json.ts";
import { isQwen3Template, Qwen3Template } from "./qwen3-template.ts";
import { reasoningToggleOf, type ReasoningToggle } from "./reasoning-toggle.ts";
import { TransformersTemplate } from "./transformers-template.ts";

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
  return content.map((part) => (part.type === "text" ? (part.text as string) : "")).join("");
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

/**
 * Templates print `arguments | tojson`; HF passes a dict there, so decode the JSON string as SGLang does (orjson:
 * 1.0 stays a float, keys keep their order). Text that is not JSON stays a string (SGLang refuses the request).
 */
function parseArguments(text: string): unknown {
  try {
    return decodePythonJson(text);
  } catch {
    return text;
  }
}

/** The named special tokens transformers hands every template, those the tokenizer sets (special_tokens_map). */
const SPECIAL_TOKENS = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"] as const;

export class ChatTemplate {
  private readonly template: TransformersTemplate;
  private readonly specials: Record<string, unknown>;
  /** A plain-code port of this template (Qwen3's), used once it rendered the probe conversations exactly as jinja. */
  private readonly compiled: Qwen3Template | null;
  /** How the template turns reasoning on and off, as SGLang 4ad990ba reads it from the text (null: it says nothing). */
  readonly reasoningToggle: ReasoningToggle | null;

  constructor(files: TokenizerFiles) {
    const source = chatTemplateText(files.tokenizerConfig.chat_template);
    if (!source) {
      throw new OpenclawRlError("TEMPLATE_ERROR", `${files.source} has no chat template (neither chat_template.jinja nor a chat_template in tokenizer_config.json)`, {
        path: files.source,
        hint: "use a chat model checkpoint (its chat_template.jinja or tokenizer_config.json carries the template), or proxy.mode: passthrough",
      });
    }
    this.template = new TransformersTemplate(source); // strip('\n') strips only '\n', tojson is json.dumps, as in transformers
    this.reasoningToggle = reasoningToggleOf(source);
    const config = files.tokenizerConfig;
    const specials: Record<string, string> = {};
    for (const name of SPECIAL_TOKENS) {
      const text = specialTokenText(config[name]);
      if (text !== undefined) specials[name] = text;
    }
    this.specials = specials;
    this.compiled = isQwen3Template(source) ? checkedPort(new Qwen3Template(), (messages, options) => this.renderJinja(messages, options)) : null;
  }

  /** Whether renders skip the jinja interpreter (a checked port of the template): cheap enough for the event loop. */
  get isCompiled(): boolean {
    return this.compiled !== null;
  }

  render(messages: readonly ChatMessage[], options: RenderOptions): string {
    const fast = this.compiled?.render(messages, options.tools, options.addGenerationPrompt, options.extra);
    return fast ?? this.renderJinja(messages, options);
  }

  /** The template through @huggingface/jinja (the reference). */
  renderJinja(messages: readonly ChatMessage[], options: RenderOptions): string {
    const templateMessages = toTemplateMessages(messages);
    try {
      return this.template.render({
        ...this.specials,
        ...options.extra,
        messages: templateMessages,
        // transformers passes both, as None when there are none (SGLang sends no tools as None): `tools is none` holds
        tools: options.tools && options.tools.length > 0 ? options.tools : null,
        documents: null,
        add_generation_prompt: options.addGenerationPrompt,
      });
    } catch (cause) {
      throw new OpenclawRlError("TEMPLATE_ERROR", `chat template failed: ${(cause as Error).message}`, { cause });
    }
  }
}

/** Probe conversations covering the template's branches; the port is used only if it renders all of them as jinja does. */
function checkedPort(port: Qwen3Template, jinja: (messages: readonly ChatMessage[], options: RenderOptions) => string): Qwen3Template | null {
  const tools: Tool[] = [{ type: "function", function: { name: "ls", description: "List \"files\" — ü", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
  const call = (id: string, args: string) => ({ id, type: "function" as const, function: { name: "ls", arguments: args } });
  const conversation: ChatMessage[] = [
    { role: "system", content: "You are a probe.\n" },
    { role: "user", content: [{ type: "text", text: "List " }, { type: "text", text: "files" }] },
    { role: "assistant", content: "<think>\nlooking\n</think>\n\nSure.", tool_calls: [call("c1", '{"path": "."}'), call("c2", '"raw"')] },
    { role: "tool", content: "a.txt", tool_call_id: "c1" },
    { role: "tool", content: "b.txt", tool_call_id: "c2" },
    { role: "assistant", content: null, reasoning_content: "\nthinking ", tool_calls: [call("c3", "not json")] },
    { role: "tool", content: "c.txt", tool_call_id: "c3" },
    { role: "assistant", content: "Done. " },
    { role: "user", content: "<tool_response>x</tool_response>" },
    { role: "developer", content: "Be brief." },
    { role: "user", content: "Thanks" },
    { role: "assistant", content: "You're welcome", reasoning_content: "" },
  ];
  const cases: [ChatMessage[], RenderOptions][] = [];
  for (const withTools of [tools, null]) {
    for (let end = 1; end <= conversation.length; end++) {
      cases.push([conversation.slice(0, end), { tools: withTools, addGenerationPrompt: end % 2 === 0 }]);
      cases.push([conversation.slice(1, end + 1), { tools: withTools, addGenerationPrompt: true, extra: { enable_thinking: end % 2 === 0 } }]);
    }
  }
  try {
    for (const [messages, options] of cases) {
      if (port.render(messages, options.tools, options.addGenerationPrompt, options.extra) !== jinja(messages, options)) return null;
    }
  } catch {
    return null;
  }
  return port;
}

