// Llama 3.1–3.3's JSON tool calls, as SGLang's llama3 detector reads them at 4ad990ba (tests/fixtures/sglang/
// parser-formats.md §3): `<|python_tag|>{"name": …, "arguments"|"parameters": {…}}`, or the same JSON as the very
// first character of the answer; several calls separated by `;`. The calls run to the end of the output; what is
// left after the last one that parses is content, and a call to a tool the request does not offer is dropped.
import { decodePythonJson, dumpPythonJson, type PythonJson } from "../../../lib/model/python-json.ts";
import { literalEval } from "./python-literal.ts";
import type { ParsedToolCall, ToolFormat } from "./tool-format.ts";

const TAG = "<|python_tag|>";

/** The end of the object that starts at `from` (matching braces outside strings), or -1. */
function objectEnd(text: string, from: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let at = from; at < text.length; at++) {
    const char = text[at]!;
    if (quote) {
      if (char === "\\") at++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return at + 1;
  }
  return -1;
}

function objectAt(text: string, from: number): { value: PythonJson; end: number } | null {
  if (text[from] !== "{") return null;
  const end = objectEnd(text, from);
  if (end < 0) return null;
  for (const read of [decodePythonJson, literalEval]) {
    try {
      return { value: read(text.slice(from, end)), end };
    } catch {
      // the next reader
    }
  }
  return null;
}

export const LLAMA3: ToolFormat = {
  sglangName: "llama3",
  opens: [TAG],
  startOpens: ["{"],
  unitEnd: () => -1,
  parse: (unit, tools) => {
    const text = unit.startsWith(TAG) ? unit.slice(TAG.length) : unit;
    const offered = new Set(tools.map((tool) => tool.function.name));
    const calls: ParsedToolCall[] = [];
    let at = 0;
    let parsedUpTo = 0;
    while (at < text.length) {
      while (at < text.length && /\s/.test(text[at]!)) at++;
      const found = objectAt(text, at);
      if (!found) {
        const next = text.indexOf('{"name":', at + 1);
        if (next < 0) break;
        at = next;
        continue;
      }
      const object = found.value instanceof Map ? found.value : null;
      const name = object?.get("name");
      if (typeof name === "string" && offered.has(name)) {
        const parameters = object!.get("parameters");
        const args = parameters instanceof Map && parameters.size > 0 ? parameters : (object!.get("arguments") ?? new Map());
        calls.push({ name, arguments: dumpPythonJson(args) });
      }
      parsedUpTo = at = found.end + 1; // (one separator character, whatever it is)
    }
    if (calls.length === 0 && parsedUpTo === 0) return null;
    const after = text.slice(Math.min(parsedUpTo, text.length)).trim();
    return after.length > 0 ? { calls, after } : { calls };
  },
};
