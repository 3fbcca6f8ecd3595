// Each family's tool-call format through the output parser, on the example outputs of tests/fixtures/sglang/
// parser-formats.md (what SGLang 4ad990ba returns for them, found by running its detectors), whole and in pieces of
// one character. Where this project differs from SGLang on purpose, the test says so.
import { describe, expect, it } from "vitest";
import type { Tool } from "../../../contracts/chat.ts";
import { OutputParser } from "../../../lib/model/parsers/output-parser.ts";
import { DEEPSEEK_V31 } from "../../../lib/model/parsers/tool-formats/deepseek.ts";
import { GLM45 } from "../../../lib/model/parsers/tool-formats/glm45.ts";
import { LLAMA3 } from "../../../lib/model/parsers/tool-formats/llama3.ts";
import { QWEN3_CODER } from "../../../lib/model/parsers/tool-formats/qwen3-coder.ts";
import type { ToolFormat } from "../../../lib/model/parsers/tool-formats/tool-format.ts";

/** The fixture's tools, in its order. */
const TOOLS: Tool[] = [
  { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" }, unit: { type: "string", enum: ["c", "f"] } } } } },
  { type: "function", function: { name: "search", parameters: { type: "object", properties: { query: { type: "string" }, limit: { type: "number" }, exact: { type: "boolean" }, filters: { type: "object" }, tags: { type: "array" } } } } },
  { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } },
];

interface Outcome {
  content: string | null;
  calls: { name: string; arguments: string }[];
  reasoning?: string | null;
}

function parse(format: ToolFormat, text: string, split: boolean, reasoning = false): Outcome {
  const parser = new OutputParser({ reasoning, startInReasoning: false, toolCalls: true, toolFormat: format, tools: TOOLS });
  for (const piece of split ? [...text] : [text]) parser.push(piece);
  parser.finish();
  const message = parser.message();
  return { content: message.content, calls: (message.tool_calls ?? []).map((call) => call.function), ...(reasoning ? { reasoning: message.reasoning_content } : {}) };
}

function expectBoth(format: ToolFormat, text: string, expected: Outcome, reasoning = false): void {
  for (const split of [false, true]) expect(parse(format, text, split, reasoning), `${split ? "in pieces" : "whole"}: ${JSON.stringify(text)}`).toEqual(expected);
}

describe("tool-call formats (SGLang 4ad990ba's detectors, tests/fixtures/sglang/parser-formats.md)", () => {
  it("deepseekv31: NAME<｜tool▁sep｜>ARGS, arguments re-written as json.dumps", () => {
    expectBoth(DEEPSEEK_V31, 'Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris", "days": 2}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>', {
      content: "Sure.",
      calls: [{ name: "get_weather", arguments: '{"city": "Paris", "days": 2}' }, { name: "get_time", arguments: "{}" }],
    });
  });

  it("llama3: <|python_tag|> or a leading {, `;` between calls, `parameters` or `arguments`, unknown tools dropped, leftovers kept", () => {
    expectBoth(LLAMA3, 'Checking.<|python_tag|>{"name": "get_weather", "arguments": {"city": "Tokyo", "days": 3}}', { content: "Checking.", calls: [{ name: "get_weather", arguments: '{"city": "Tokyo", "days": 3}' }] });
    expectBoth(LLAMA3, '<|python_tag|>{"name": "get_weather", "arguments": {"city": "A"}}; {"name": "search", "arguments": {"query": "b", "exact": true}}', {
      content: null,
      calls: [{ name: "get_weather", arguments: '{"city": "A"}' }, { name: "search", arguments: '{"query": "b", "exact": true}' }],
    });
    expectBoth(LLAMA3, '{"name": "get_weather", "parameters": {"city": "Oslo"}}', { content: null, calls: [{ name: "get_weather", arguments: '{"city": "Oslo"}' }] });
    expectBoth(LLAMA3, '<|python_tag|>{"name": "nope", "arguments": {}} trailing', { content: "trailing", calls: [] });
    // not a call: a leading space (kept: no reasoning parser trims it), or text before the brace
    expectBoth(LLAMA3, ' {"name": "get_weather", "arguments": {}}', { content: ' {"name": "get_weather", "arguments": {}}', calls: [] });
    expectBoth(LLAMA3, 'Here: {"name": "get_weather", "arguments": {}}', { content: 'Here: {"name": "get_weather", "arguments": {}}', calls: [] });
  });

  it("qwen3_coder: XML parameters converted by the schema (4ad990ba), a tool not offered kept with string values", () => {
    const call = (name: string, parameters: [string, string][]) =>
      `<tool_call>\n<function=${name}>\n${parameters.map(([key, value]) => `<parameter=${key}>\n${value}\n</parameter>\n`).join("")}</function>\n</tool_call>`;
    // (the text before the call as written: SGLang's qwen3_coder detector keeps text[:start_idx], qwen3_coder_detector.py:236@4ad990ba)
    expectBoth(QWEN3_CODER, `Let me look.\n${call("get_weather", [["city", "New York"], ["days", "5"]])}`, { content: "Let me look.\n", calls: [{ name: "get_weather", arguments: '{"city": "New York", "days": 5}' }] });
    expectBoth(QWEN3_CODER, call("search", [["query", "123"], ["limit", "10"], ["exact", "True"], ["filters", '{"lang": "en"}'], ["tags", "['a', 'b']"]]), {
      content: null,
      calls: [{ name: "search", arguments: '{"query": "123", "limit": 10, "exact": true, "filters": {"lang": "en"}, "tags": ["a", "b"]}' }],
    });
    expectBoth(QWEN3_CODER, call("search", [["query", "null"], ["limit", "2.50"], ["exact", "yes"], ["filters", "not json"], ["extra", "42"]]), {
      content: null,
      calls: [{ name: "search", arguments: '{"query": null, "limit": 2.5, "exact": false, "filters": "not json", "extra": "42"}' }],
    });
    expectBoth(QWEN3_CODER, `${call("get_time", [])}\n${call("get_weather", [["city", "Rome"]])}`, { content: null, calls: [{ name: "get_time", arguments: "{}" }, { name: "get_weather", arguments: '{"city": "Rome"}' }] });
    expectBoth(QWEN3_CODER, `A${call("nope", [["x", "1"]])}`, { content: "A", calls: [{ name: "nope", arguments: '{"x": "1"}' }] });
  });

  it("glm45: <arg_key>/<arg_value> pairs converted by the schema, string parameters coerced as Python's str()", () => {
    expectBoth(GLM45, "Let me check.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>", {
      content: "Let me check.",
      calls: [{ name: "get_weather", arguments: '{"city": "北京", "days": 3}' }],
    });
    expectBoth(GLM45, '<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>true</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>"5"</arg_value>\n<arg_key>exact</arg_key>\n<arg_value>false</arg_value>\n<arg_key>filters</arg_key>\n<arg_value>{"lang": "en"}</arg_value>\n<arg_key>tags</arg_key>\n<arg_value>["a", "b"]</arg_value>\n</tool_call>', {
      content: null,
      calls: [{ name: "search", arguments: '{"query": "True", "limit": 5, "exact": false, "filters": {"lang": "en"}, "tags": ["a", "b"]}' }],
    });
    expectBoth(GLM45, "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>\nParis\n</arg_value>\n</tool_call>", { content: null, calls: [{ name: "get_weather", arguments: '{"city": "\\nParis\\n"}' }] });
    expectBoth(GLM45, "x<tool_call>get_time\n</tool_call>", { content: "x", calls: [{ name: "get_time", arguments: "{}" }] });
    expectBoth(GLM45, "x<tool_call>get_time</tool_call>", { content: "x", calls: [] }); // no newline after the name: no call
  });

  it("reasoning before a family's calls (<think> as SGLang's glm45 and deepseek-r1 parsers read it)", () => {
    expectBoth(GLM45, "<think>\nNeed the weather.\n</think>\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>", { content: null, reasoning: "Need the weather.", calls: [{ name: "get_weather", arguments: '{"city": "Oslo"}' }] }, true);
  });
});
