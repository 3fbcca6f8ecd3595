// Splits a Qwen3 assistant text into reasoning (`<think>…</think>`), content and qwen25 tool calls
// (`<tool_call>{json}</tool_call>`), the way SGLang's qwen3 reasoning parser and qwen25 tool parser do. While a
// reply is still streaming, text that may be the start of a tag is held back. Ignores every other format.

export interface ParsedToolCall {
  name: string;
  arguments: string;
}

export interface ParsedAssistant {
  reasoning: string | null;
  content: string;
  toolCalls: ParsedToolCall[];
}

function holdBack(text: string, tag: string): string {
  for (let keep = Math.min(tag.length - 1, text.length); keep > 0; keep -= 1) {
    if (tag.startsWith(text.slice(text.length - keep))) return text.slice(0, text.length - keep);
  }
  return text;
}

export function parseAssistantText(text: string, options: { tools: boolean; final: boolean }): ParsedAssistant {
  let reasoning: string | null = null;
  let rest = text;
  const trimmed = text.trimStart();
  if (trimmed.startsWith("<think>")) {
    const after = trimmed.slice("<think>".length).replace(/^\n/, "");
    const end = after.indexOf("</think>");
    if (end < 0) return { reasoning: options.final ? after : holdBack(after, "</think>"), content: "", toolCalls: [] };
    reasoning = after.slice(0, end);
    rest = after.slice(end + "</think>".length).trimStart();
  } else if (!options.final && "<think>".startsWith(trimmed)) {
    return { reasoning: null, content: "", toolCalls: [] };
  }
  if (!options.tools) return { reasoning, content: options.final ? rest : rest, toolCalls: [] };
  const first = rest.indexOf("<tool_call>");
  if (first < 0) return { reasoning, content: options.final ? rest : holdBack(rest, "<tool_call>"), toolCalls: [] };
  const toolCalls: ParsedToolCall[] = [];
  const pattern = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
  let unparsed = "";
  for (const match of rest.slice(first).matchAll(pattern)) {
    try {
      const call = JSON.parse(match[1] ?? "") as { name?: unknown; arguments?: unknown };
      if (typeof call.name !== "string") throw new Error("no name");
      toolCalls.push({ name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}) });
    } catch {
      unparsed += match[0];
    }
  }
  return { reasoning, content: rest.slice(0, first).trimEnd() + unparsed, toolCalls };
}
