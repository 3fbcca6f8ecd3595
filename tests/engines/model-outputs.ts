// Seeded random model-like outputs per family, in the markup each SGLang tool-call parser reads: reasoning (closed,
// or open when the prompt opened it), text, and 0-3 tool calls with JSON-like arguments (strings with quotes,
// newlines, CJK, numbers, booleans, null, nested objects and lists). Ignores gpt-oss's harmony channels.
import type { Tool } from "../../contracts/chat.ts";
import type { SeededRandom } from "../support/seeded-random.ts";

export interface OutputFamily {
  name: string;
  toolCallParser: string;
  reasoningParser: string | null;
  /** The generation prompt opened the reasoning (the output starts inside it). */
  forceReasoning: boolean;
  calls(random: SeededRandom, calls: Array<{ name: string; arguments: Record<string, unknown> }>): string;
}

export const TOOLS: Tool[] = ["read", "exec", "web_search"].map((name) => ({
  type: "function",
  function: {
    name,
    description: `the ${name} tool`,
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, count: { type: "integer" }, ratio: { type: "number" }, force: { type: "boolean" }, options: { type: "object" }, items: { type: "array" } },
    },
  },
}));

const TEXTS = ["Let me check.", "I'll read the file first.", "好的，我来看看。", "Done: `ls -la` shows 3 files.", "Here is the plan:\n1. read\n2. edit", "Sure!", "emoji 🙂 ok", "a < b and c > d"];
const THOUGHTS = ["The user wants a file list.", "First read the config.\nThen edit it.", "考虑一下 🤔", "Plan:\n1. ls\n2. read", "Hmm, maybe `ls`."];
const STRINGS = ["/tmp/a.txt", "src/main.ts", 'say "hi"', "line1\nline2", "中文路径/文件", "C:\\\\dir", "tab\there", "", "50% <b>bold</b>"];

/** Python's json.dumps spacing (", " and ": "), which models trained on it write. */
export function pythonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(", ")}]`;
  if (value !== null && typeof value === "object") return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${pythonDumps(item)}`).join(", ")}}`;
  return JSON.stringify(value);
}

function randomValue(random: SeededRandom, key: string, depth = 0): unknown {
  if (key === "path") return random.pick(STRINGS);
  if (key === "count") return random.below(1000) - 10;
  if (key === "ratio") return random.pick([0.5, 1.25, -3.75, 100.5]);
  if (key === "force") return random.chance(0.5);
  if (key === "options") return depth > 0 ? {} : { mode: random.pick(STRINGS), depth: random.below(5), nested: { on: random.chance(0.5) } };
  return [random.pick(STRINGS), random.below(9)];
}

export function randomCalls(random: SeededRandom): Array<{ name: string; arguments: Record<string, unknown> }> {
  const count = random.pick([0, 0, 1, 1, 1, 2, 3]);
  return Array.from({ length: count }, () => {
    const keys = ["path", "count", "ratio", "force", "options", "items"].filter(() => random.chance(0.5));
    return { name: random.pick(TOOLS).function.name, arguments: Object.fromEntries(keys.map((key) => [key, randomValue(random, key)])) };
  });
}

/** A value as qwen3_coder and glm45 write a parameter: strings raw, anything else as JSON. */
function xmlValue(value: unknown): string {
  return typeof value === "string" ? value : pythonDumps(value);
}

export const OUTPUT_FAMILIES: OutputFamily[] = [
  {
    name: "qwen3",
    toolCallParser: "qwen",
    reasoningParser: "qwen3",
    forceReasoning: false,
    calls: (_random, calls) => calls.map((call) => `<tool_call>\n${pythonDumps({ name: call.name, arguments: call.arguments })}\n</tool_call>`).join("\n"),
  },
  {
    name: "qwen3-thinking-2507",
    toolCallParser: "qwen",
    reasoningParser: "qwen3-thinking",
    forceReasoning: true,
    calls: (_random, calls) => calls.map((call) => `<tool_call>\n${pythonDumps({ name: call.name, arguments: call.arguments })}\n</tool_call>`).join("\n"),
  },
  {
    name: "qwen3-coder",
    toolCallParser: "qwen3_coder",
    reasoningParser: "qwen3",
    forceReasoning: false,
    calls: (_random, calls) =>
      calls
        .map((call) => `<tool_call>\n<function=${call.name}>\n${Object.entries(call.arguments).map(([key, value]) => `<parameter=${key}>\n${xmlValue(value)}\n</parameter>\n`).join("")}</function>\n</tool_call>`)
        .join("\n"),
  },
  {
    name: "glm-4.5",
    toolCallParser: "glm45",
    reasoningParser: "glm45",
    forceReasoning: false,
    calls: (_random, calls) =>
      calls.map((call) => `<tool_call>${call.name}\n${Object.entries(call.arguments).map(([key, value]) => `<arg_key>${key}</arg_key>\n<arg_value>${xmlValue(value)}</arg_value>\n`).join("")}</tool_call>`).join("\n"),
  },
  {
    name: "deepseek-r1",
    toolCallParser: "deepseekv3",
    reasoningParser: "deepseek-r1",
    forceReasoning: true,
    calls: (_random, calls) =>
      calls.length === 0
        ? ""
        : `<｜tool▁calls▁begin｜>${calls.map((call) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${call.name}\n\`\`\`json\n${pythonDumps(call.arguments)}\n\`\`\`<｜tool▁call▁end｜>`).join("\n")}<｜tool▁calls▁end｜>`,
  },
  {
    name: "deepseek-v3.1",
    toolCallParser: "deepseekv31",
    reasoningParser: null,
    forceReasoning: false,
    calls: (_random, calls) =>
      calls.length === 0 ? "" : `<｜tool▁calls▁begin｜>${calls.map((call) => `<｜tool▁call▁begin｜>${call.name}<｜tool▁sep｜>${pythonDumps(call.arguments)}<｜tool▁call▁end｜>`).join("")}<｜tool▁calls▁end｜>`,
  },
  {
    name: "llama3",
    toolCallParser: "llama3",
    reasoningParser: null,
    forceReasoning: false,
    calls: (random, calls) => (calls.length === 0 ? "" : (random.chance(0.5) ? "<|python_tag|>" : "") + calls.map((call) => pythonDumps({ name: call.name, parameters: call.arguments })).join("; ")),
  },
];

/** One output: reasoning (when the family has it), text, then the calls; llama3 writes its calls alone. */
export function randomOutput(random: SeededRandom, family: OutputFamily): string {
  let reasoning = "";
  if (family.reasoningParser && random.chance(0.7)) reasoning = `${family.forceReasoning ? "" : "<think>"}${random.pick(THOUGHTS)}</think>${random.pick(["\n\n", "\n", ""])}`;
  const calls = family.calls(random, randomCalls(random));
  const text = family.name === "llama3" && calls ? "" : random.chance(0.8) ? random.pick(TEXTS) : "";
  return reasoning + text + (text && calls ? random.pick(["\n", "\n\n", " "]) : "") + calls;
}

/** Random pieces of 1-12 characters (code points kept whole), as a stream might bring them. */
export function randomPieces(random: SeededRandom, text: string): string[] {
  const points = [...text];
  const pieces: string[] = [];
  for (let at = 0; at < points.length; ) {
    const size = 1 + random.below(12);
    pieces.push(points.slice(at, at + size).join(""));
    at += size;
  }
  return pieces;
}
