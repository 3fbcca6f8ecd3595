// How the cost of streaming one long tool call grows with its length, per family's markup: a write call whose content
// is 12, 48 or 96 KB, decoded and parsed 4 characters at a time (about a token each), in one process, median of 3.
// Work linear in the length gives 96 KB ÷ 12 KB ≈ 8×; re-searching the whole call on every piece gave 60–1000×.
// Two pathological shapes too: a name that never closes, and a function with one parameter per line.
import { HarmonyParser } from "../../lib/model/parsers/harmony-parser.ts";
import { OutputParser } from "../../lib/model/parsers/output-parser.ts";
import { DEEPSEEK_V3, DEEPSEEK_V31 } from "../../lib/model/parsers/tool-formats/deepseek.ts";
import { GLM45 } from "../../lib/model/parsers/tool-formats/glm45.ts";
import { LLAMA3 } from "../../lib/model/parsers/tool-formats/llama3.ts";
import { QWEN3_CODER } from "../../lib/model/parsers/tool-formats/qwen3-coder.ts";
import type { ToolFormat } from "../../lib/model/parsers/tool-formats/tool-format.ts";

const TOOLS = [{ type: "function" as const, function: { name: "write", parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } } } } }];
const SIZES = [12_000, 48_000, 96_000];

function fileOf(size: number): string {
  let text = "";
  for (let line = 0; text.length < size; line++) text += `line ${line}: const x = "a\\tb"; // ok\n`;
  return text;
}

const json = (content: string) => JSON.stringify({ path: "a.ts", content });
const MARKUP: [string, (content: string) => string, ToolFormat | "qwen" | "harmony"][] = [
  ["Qwen 2.5 / Qwen3", (c) => `<tool_call>\n{"name": "write", "arguments": ${json(c)}}\n</tool_call>`, "qwen"],
  ["DeepSeek-V3", (c) => `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write\n\`\`\`json\n${json(c)}\n\`\`\`<｜tool▁call▁end｜><｜tool▁calls▁end｜>`, DEEPSEEK_V3],
  ["DeepSeek-V3.1", (c) => `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write<｜tool▁sep｜>${json(c)}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`, DEEPSEEK_V31],
  ["Llama 3", (c) => `<|python_tag|>{"name": "write", "parameters": ${json(c)}}`, LLAMA3],
  ["Qwen3-Coder", (c) => `<tool_call>\n<function=write>\n<parameter=path>\na.ts\n</parameter>\n<parameter=content>\n${c}\n</parameter>\n</function>\n</tool_call>`, QWEN3_CODER],
  ["GLM-4.5", (c) => `<tool_call>write\n<arg_key>path</arg_key>\n<arg_value>a.ts</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${c}</arg_value>\n</tool_call>`, GLM45],
  ["gpt-oss", (c) => `<|channel|>commentary to=functions.write <|constrain|>json<|message|>${json(c)}<|call|>`, "harmony"],
  // pathological: a model looping inside a call's name until max tokens; a function with one parameter per line
  ["Qwen 2.5, a name that never closes", (c) => `<tool_call>\n{"name": "${c.replace(/["\\\n]/g, "x")}`, "qwen"],
  ["Qwen3-Coder, a parameter per line", (c) => `<tool_call>\n<function=write>\n${c.split("\n").map((line, index) => `<parameter=p${index}>\n${line}\n</parameter>\n`).join("")}</function>\n</tool_call>`, QWEN3_CODER],
];

function parse(format: ToolFormat | "qwen" | "harmony", text: string): number {
  const parser =
    format === "harmony"
      ? new HarmonyParser({ toolCalls: true, tools: TOOLS })
      : new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, ...(format === "qwen" ? {} : { toolFormat: format, tools: TOOLS }) });
  const started = performance.now();
  for (let at = 0; at < text.length; at += 4) parser.push(text.slice(at, at + 4));
  parser.finish();
  const ms = performance.now() - started;
  if ((parser.message().tool_calls?.length ?? 0) + (parser.message().content ? 1 : 0) === 0) throw new Error("nothing was parsed");
  return ms;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

console.log("One write call parsed 4 characters at a time, in one process, median of 3 (ms); the ratio is what reads the code's growth.\n");
console.log(`| markup | ${SIZES.map((size) => `${size / 1000} KB`).join(" | ")} | 96 KB ÷ 12 KB |`);
console.log(`| --- | ${SIZES.map(() => "---").join(" | ")} | --- |`);
for (const [name, make, format] of MARKUP) {
  for (let round = 0; round < 3; round++) parse(format, make(fileOf(SIZES[0]!))); // warm: the JIT, not the growth
  const times = SIZES.map((size) => median([0, 1, 2].map(() => parse(format, make(fileOf(size))))));
  console.log(`| ${name} | ${times.map((ms) => ms.toFixed(1)).join(" | ")} | ${(times.at(-1)! / times[0]!).toFixed(1)}× |`);
}
