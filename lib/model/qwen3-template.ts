// Qwen3's chat template (tokenizer_config.json of the Qwen3 family, identified by the SHA-256 of its source) as
// plain TypeScript: the same text as transformers' jinja2 renders (tests/proxy/template-parity.test.ts), in microseconds
// instead of milliseconds for a long history. ChatTemplate uses it only after checking it against jinja; ignores every other template.
import { createHash } from "node:crypto";
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import { LruCache } from "../lru-cache.ts";
import { decodePythonJson, dumpPythonJson, type PythonJson } from "./python-json.ts";
import { stripPython } from "./python-strip.ts";

/** SHA-256 of the chat_template string shipped with Qwen3 checkpoints (and builtin:qwen3). */
export const QWEN3_TEMPLATE_SHA256 = "87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5";

export function isQwen3Template(source: string): boolean {
  return createHash("sha256").update(source).digest("hex") === QWEN3_TEMPLATE_SHA256;
}

const TOOLS_INTRO = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>";
const TOOLS_OUTRO =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';

interface Flat {
  role: string;
  content: string;
  message: ChatMessage;
}

export class Qwen3Template {
  private readonly toolBlocks = new LruCache<string, string>(64); // tools (as JSON) → their rendered lines
  private readonly argumentTexts = new LruCache<string, string>(4096); // a tool call's arguments string → rendered

  /**
   * The rendered prompt, or null when the input is outside what this port covers (then jinja renders it).
   * `messages` as the request sent them (content parts are flattened here, developer → system).
   */
  render(messages: readonly ChatMessage[], tools: readonly Tool[] | null | undefined, addGenerationPrompt: boolean, extra: Record<string, unknown> | undefined): string | null {
    if (messages.length === 0 || (extra !== undefined && "namespace" in extra)) return null;
    const flat: Flat[] = new Array(messages.length);
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index]!;
      const content = flatten(message.content);
      if (content === null) return null;
      flat[index] = { role: message.role === "developer" ? "system" : message.role, content, message };
    }
    const last = flat.length - 1;
    let out = "";
    const first = flat[0]!;
    if (tools && tools.length > 0) {
      out += "<|im_start|>system\n";
      if (first.role === "system") out += first.content + "\n\n";
      out += TOOLS_INTRO + this.toolLines(tools) + TOOLS_OUTRO;
    } else if (first.role === "system") out += "<|im_start|>system\n" + first.content + "<|im_end|>\n";

    let lastQuery = last;
    for (let index = last; index >= 0; index--) {
      const { role, content } = flat[index]!;
      if (role === "user" && !(content.startsWith("<tool_response>") && content.endsWith("</tool_response>"))) {
        lastQuery = index;
        break;
      }
    }

    for (let index = 0; index <= last; index++) {
      const { role, content: text, message } = flat[index]!;
      if (role === "user" || (role === "system" && index > 0)) out += "<|im_start|>" + role + "\n" + text + "<|im_end|>\n";
      else if (role === "assistant") {
        const assistant = message as Extract<ChatMessage, { role: "assistant" }>;
        let content = text;
        let reasoning = "";
        const given = (assistant as Record<string, unknown>).reasoning_content;
        if (given !== undefined && given !== null) {
          if (typeof given !== "string") return null;
          reasoning = given;
        } else if (text.includes("</think>")) {
          // the template's .lstrip('\n') / .rstrip('\n') / .strip('\n') strip newlines only, as Python does
          const parts = text.split("</think>");
          content = stripPython(parts[parts.length - 1]!, "\n", "start");
          const before = stripPython(parts[0]!, "\n", "end").split("<think>");
          reasoning = stripPython(before[before.length - 1]!, "\n", "start");
        }
        if (index > lastQuery && (index === last || reasoning)) out += "<|im_start|>assistant\n<think>\n" + stripPython(reasoning, "\n", "both") + "\n</think>\n\n" + stripPython(content, "\n", "start");
        else out += "<|im_start|>assistant\n" + content;
        const calls = assistant.tool_calls;
        if (calls && calls.length > 0) {
          for (let call = 0; call < calls.length; call++) {
            if (call > 0 || content) out += "\n";
            const entry = calls[call]! as Record<string, unknown>;
            const fn = entry.function && typeof entry.function === "object" && Object.keys(entry.function).length > 0 ? (entry.function as Record<string, unknown>) : entry;
            if (typeof fn.name !== "string" || typeof fn.arguments !== "string") return null;
            out += '<tool_call>\n{"name": "' + fn.name + '", "arguments": ' + this.argumentText(fn.arguments) + "}\n</tool_call>";
          }
        }
        out += "<|im_end|>\n";
      } else if (role === "tool") {
        if (index === 0 || flat[index - 1]!.role !== "tool") out += "<|im_start|>user";
        out += "\n<tool_response>\n" + text + "\n</tool_response>";
        if (index === last || flat[index + 1]!.role !== "tool") out += "<|im_end|>\n";
      } else if (role !== "system") return null;
    }
    if (addGenerationPrompt) {
      out += "<|im_start|>assistant\n";
      if (extra?.enable_thinking === false) out += "<think>\n\n</think>\n\n";
    }
    return out;
  }

  private toolLines(tools: readonly Tool[]): string {
    const key = JSON.stringify(tools);
    let lines = this.toolBlocks.get(key);
    if (lines === undefined) {
      lines = "";
      for (const tool of tools) lines += "\n" + dumpPythonJson(tool as unknown as PythonJson); // `tool | tojson`
      this.toolBlocks.set(key, lines);
    }
    return lines;
  }

  /** ChatTemplate decodes arguments JSON for the template as SGLang does: a string is printed as is, else tojson. */
  private argumentText(raw: string): string {
    let text = this.argumentTexts.get(raw);
    if (text === undefined) {
      let value: PythonJson;
      try {
        value = decodePythonJson(raw);
      } catch {
        value = raw;
      }
      text = typeof value === "string" ? value : dumpPythonJson(value);
      this.argumentTexts.set(raw, text);
    }
    return text;
  }
}

function flatten(content: ChatMessage["content"] | undefined): string | null {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  let text = "";
  for (const part of content) if (part.type === "text") text += (part.text as string);
  return text;
}
