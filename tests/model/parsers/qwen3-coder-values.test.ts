// Qwen3-Coder parameter values per slime flavour: upstream reads them by the tool's schema as SGLang 4ad990ba does,
// fork without it as dce8b060's _safe_val does (qwen3_coder_detector.py:20@dce8b060: html.unescape of the stripped
// text, then json.loads, then ast.literal_eval, else the text). Expected arguments were computed by python3 (3.11).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Tool } from "../../../contracts/chat.ts";
import { createAnswerParser } from "../../../lib/model/parsers/answer-parser.ts";
import { htmlUnescape } from "../../../lib/model/parsers/tool-formats/html-unescape.ts";

const VALUES: Record<string, string> = {
  a: "5",
  b: "&lt;b&gt; &amp; co",
  c: "  two spaces  ",
  d: "True",
  e: "[1, 'a']",
  f: "null",
  g: "hello world",
  h: "3.0",
  i: "&#x41;&#0;",
  j: "{'k': (1, 2)}",
  k: "&quot;quoted&quot;",
  l: "1_000",
  m: "&notit; x",
};
/** Every parameter a string: 4ad990ba keeps the text (but "null"), dce8b060 reads it regardless. */
const TOOL: Tool = { type: "function", function: { name: "put", parameters: { type: "object", properties: Object.fromEntries(Object.keys(VALUES).map((key) => [key, { type: "string" }])) } } };
const OUTPUT = `<tool_call>\n<function=put>\n${Object.entries(VALUES)
  .map(([key, value]) => `<parameter=${key}>\n${value}\n</parameter>\n`)
  .join("")}</function>\n</tool_call>`;

/** json.dumps(arguments, ensure_ascii=False) of what each SGLang returns, from python3. */
const EXPECTED = {
  fork: '{"a": 5, "b": "<b> & co", "c": "two spaces", "d": true, "e": [1, "a"], "f": null, "g": "hello world", "h": 3.0, "i": "A\uFFFD", "j": {"k": [1, 2]}, "k": "quoted", "l": 1000, "m": "¬it; x"}',
  upstream: '{"a": "5", "b": "&lt;b&gt; &amp; co", "c": "  two spaces  ", "d": "True", "e": "[1, \'a\']", "f": null, "g": "hello world", "h": "3.0", "i": "&#x41;&#0;", "j": "{\'k\': (1, 2)}", "k": "&quot;quoted&quot;", "l": "1_000", "m": "&notit; x"}',
};

function parse(flavor: "fork" | "upstream", pieces: readonly string[]): { name: string; arguments: string }[] {
  const { parser } = createAnswerParser({ parsers: { toolCallParser: "qwen3_coder", reasoningParser: null }, tools: [TOOL], startsInReasoning: false, flavor });
  let streamed = "";
  for (const piece of pieces) for (const delta of parser.push(piece)) if (delta.kind === "tool-call-arguments") streamed += delta.text;
  for (const delta of parser.finish()) if (delta.kind === "tool-call-arguments") streamed += delta.text;
  const calls = (parser.message().tool_calls ?? []).map((call) => call.function);
  // (what was streamed adds up to the answer's arguments)
  expect(streamed).toBe(calls.map((call) => call.arguments).join(""));
  return calls;
}

describe("Qwen3-Coder parameter values per flavour", () => {
  for (const flavor of ["fork", "upstream"] as const) {
    it(`${flavor}: as ${flavor === "fork" ? "dce8b060's _safe_val" : "4ad990ba's schema conversion"} reads them, whole and one character at a time`, () => {
      for (const pieces of [[OUTPUT], [...OUTPUT]]) expect(parse(flavor, pieces)).toEqual([{ name: "put", arguments: EXPECTED[flavor] }]);
    });
  }
});

describe("Qwen3-Coder calls to a tool the request does not offer", () => {
  const text = `Sure.<tool_call>\n<function=nope>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>${OUTPUT}`;
  const answer = (flavor: "fork" | "upstream", pieces: readonly string[]) => {
    const { parser } = createAnswerParser({ parsers: { toolCallParser: "qwen3_coder", reasoningParser: null }, tools: [TOOL], startsInReasoning: false, flavor });
    for (const piece of pieces) parser.push(piece);
    parser.finish();
    const message = parser.message();
    return { content: message.content, names: (message.tool_calls ?? []).map((call) => call.function.name) };
  };
  it("fork: dropped, markup and all, as dce8b060's parse_base_json drops it (base_format_detector.py:78-82@dce8b060); upstream: kept, as 4ad990ba keeps it", () => {
    for (const pieces of [[text], [...text]]) {
      expect(answer("fork", pieces)).toEqual({ content: "Sure.", names: ["put"] });
      expect(answer("upstream", pieces)).toEqual({ content: "Sure.", names: ["nope", "put"] });
    }
  });
});

describe("html.unescape as Python computes it", () => {
  const fixture = JSON.parse(readFileSync(path.join(import.meta.dirname, "../../fixtures/python-html-unescape.json"), "utf8")) as { cases: [string, string][] };
  it(`gives CPython's answer on all ${fixture.cases.length} fixture strings`, () => {
    const wrong = fixture.cases.filter(([input, expected]) => htmlUnescape(input) !== expected);
    expect(wrong).toEqual([]);
    expect(fixture.cases.length).toBeGreaterThan(300);
  });
});
