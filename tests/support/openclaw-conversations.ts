// Seeded random OpenClaw-like chat requests for rendering parity: system prompts, tools, multi-turn histories with
// reasoning, tool calls (arguments as re-indented JSON objects) and tool results. Ignores images and content parts.
//
// Text is what agents send and models answer: whitespace at the edges (newlines, spaces, tabs, ideographic space), code,
// CJK, emoji (surrogate pairs, skin-tone modifiers), combining marks, quotes and backslashes, <think> tags written
// inline. Content is a string or, as OpenClaw sends it, one text part. Arguments are JSON objects (SGLang refuses
// others), re-indented by JavaScript clients or written by Python ones (1.0, 1e-05, integer-like and repeated keys).
import type { ChatRequest, Tool } from "../../contracts/chat.ts";
import { randomJsonObjectText } from "./json-texts.ts";
import type { SeededRandom } from "./seeded-random.ts";

const EDGES = ["", "", "", " ", "\n", "\n\n", " \n", "\n ", "\t", "\n\n\n", "\u3000", "\r\n"];
const BODIES = [
  "Sure.",
  "Let me check the workspace first.",
  "```python\ndef area(r):\n    return 3.14159 * r ** 2  # 面积\n```",
  "```ts\nconst x = { a: 1 };\n\tconsole.log(`${x.a}`);\n```",
  "日本語のテキストと中文的句子。",
  "emoji 🙂👍🏽 and flags 🇯🇵",
  "e\u0301 combining a\u0308 and n\u0303",
  "path/to/file.ts:12",
  "line one\nline two\n\nline four",
  "  indented line\n    more indented",
  '{"json": true, "n": [1, 2]}',
  "<b>html</b> & \"double\" 'single' quotes",
  "back\\slash and \\n literal",
  "tab\tseparated\tvalues",
  "<tool_response>looks like a tool reply</tool_response>",
  "I will call a tool.",
];
const REASONING = ["", "The user wants the file list.", "First read the config.\nThen edit it.", "考虑一下 🤔", "  spaced thought  ", "Plan:\n1. ls\n2. read"];
const TOOL_NAMES = ["read", "write", "edit", "exec", "ls", "apply_patch", "grep", "web_fetch", "memory_search", "sessions_send"];

function text(random: SeededRandom, bodies: readonly string[] = BODIES): string {
  let body = random.pick(bodies);
  if (random.chance(0.3)) body += random.pick(["\n\n", " ", "\n"]) + random.pick(bodies);
  return random.pick(EDGES) + body + random.pick(EDGES);
}

function tools(random: SeededRandom): Tool[] {
  const count = 1 + random.below(TOOL_NAMES.length);
  return TOOL_NAMES.slice(0, count).map((name) => ({
    type: "function" as const,
    function: {
      name,
      description: random.pick(["Read a file.", "Run a shell command — carefully.", "检索记忆 🔎", 'Edit "exact" text\nacross lines', "Fetch a URL\twith a timeout"]),
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "A workspace path." },
          ...(random.chance(0.5) ? { timeout: { type: "integer", minimum: 0, maximum: 600, default: 30 } } : {}),
          ...(random.chance(0.4) ? { mode: { type: "string", enum: ["read", "write", "追加"] } } : {}),
          ...(random.chance(0.3) ? { ratio: { type: "number", default: 0.5 } } : {}),
          ...(random.chance(0.3) ? { lines: { type: "array", items: { type: "integer" } } } : {}),
        },
        required: ["path"],
      },
    },
  }));
}

/** A JSON object as a model writes arguments, re-indented as clients do (compact, spaced, 2, 4 or tab indents). */
function argumentsText(random: SeededRandom): string {
  if (random.chance(0.25)) return randomJsonObjectText(random);
  const value: Record<string, unknown> = { path: random.pick(["src/main.ts", "./docs/日本.md", "C:\\Users\\me", "a b/c.txt", "🙂.txt"]) };
  if (random.chance(0.5)) value.content = text(random);
  if (random.chance(0.3)) value.timeout = random.pick([0, 30, -1, 600]);
  if (random.chance(0.2)) value.ratio = random.pick([0.5, 0.25, 3.14159]);
  if (random.chance(0.3)) value.options = { recursive: random.chance(0.5), depth: null, tags: ["x", "é", "🙂"] };
  if (random.chance(0.2)) value.lines = [1, 2, 3];
  const indent = random.pick([undefined, 2, 4, "\t"]);
  const json = JSON.stringify(value, null, indent);
  return random.chance(0.2) ? json.replaceAll('":', '" :').replaceAll(",", " ,") : json;
}

/** Content as a string, or as the single text part OpenClaw sends for user and system messages. */
function messageContent(random: SeededRandom): string | Array<{ type: "text"; text: string }> {
  const value = text(random);
  return random.chance(0.3) ? [{ type: "text", text: value }] : value;
}

/** One request the proxy could receive from OpenClaw, as its JSON body. */
export function openclawConversation(random: SeededRandom): ChatRequest {
  const messages: ChatRequest["messages"] = [];
  if (random.chance(0.85)) messages.push({ role: "system", content: messageContent(random) });
  let call = 0;
  for (let turn = 1 + random.below(4); turn > 0; turn--) {
    messages.push({ role: "user", content: messageContent(random) });
    for (let step = random.below(4); step >= 0; step--) {
      const thinking = random.pick(["none", "inline", "field", "field-null"] as const);
      const reasoning = text(random, REASONING);
      let content: string | null = random.chance(0.15) ? "" : text(random);
      if (thinking === "inline") content = random.pick(["", "<think>", "\n<think>\n"]) + reasoning + random.pick(["</think>", "\n</think>\n\n", "</think>\n"]) + (content ?? "");
      const calls = step > 0 || random.chance(0.2)
        ? Array.from({ length: 1 + random.below(2) }, () => ({ id: `call_${call++}`, type: "function" as const, function: { name: random.pick(TOOL_NAMES), arguments: argumentsText(random) } }))
        : [];
      if (calls.length > 0 && random.chance(0.3)) content = null;
      messages.push({
        role: "assistant",
        content,
        ...(thinking === "field" ? { reasoning_content: reasoning } : thinking === "field-null" ? { reasoning_content: null } : {}),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      for (const { id } of calls) messages.push({ role: "tool", content: messageContent(random), tool_call_id: id });
      if (calls.length === 0) break;
    }
  }
  // the proxy renders a prompt ending in a user or tool message; sometimes a history ending in the assistant's reply
  if (random.chance(0.15)) messages.push({ role: "user", content: messageContent(random) });
  if (random.chance(0.1)) messages.pop();
  const thinking = random.pick([undefined, true, false]);
  return {
    messages,
    ...(random.chance(0.7) ? { tools: tools(random) } : {}),
    ...(thinking !== undefined ? { chat_template_kwargs: { enable_thinking: thinking } } : {}),
  };
}
