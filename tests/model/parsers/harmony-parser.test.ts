// gpt-oss's harmony output through HarmonyParser, on the example outputs of tests/fixtures/sglang/parser-formats.md §7
// (what SGLang 4ad990ba returns for them), whole and one character at a time. Where this project differs from SGLang
// on purpose, the test says so.
import { describe, expect, it } from "vitest";
import type { Tool } from "../../../contracts/chat.ts";
import { HarmonyParser } from "../../../lib/model/parsers/harmony-parser.ts";

const TOOLS: Tool[] = [
  { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } } } } },
  { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } },
];

function parse(text: string, split: boolean, toolCalls = true) {
  const parser = new HarmonyParser({ toolCalls, tools: TOOLS });
  const deltas = [];
  for (const piece of split ? [...text] : [text]) deltas.push(...parser.push(piece));
  deltas.push(...parser.finish());
  const message = parser.message();
  return { reasoning: message.reasoning_content ?? null, content: message.content, calls: (message.tool_calls ?? []).map((call) => call.function), deltas };
}

function expectBoth(text: string, expected: { reasoning: string | null; content: string | null; calls: { name: string; arguments: string }[] }, toolCalls = true): void {
  for (const split of [false, true]) {
    const { deltas, ...outcome } = parse(text, split, toolCalls);
    expect(outcome, `${split ? "in pieces" : "whole"}: ${text}`).toEqual(expected);
    for (const delta of deltas) if (delta.kind === "content" || delta.kind === "reasoning") expect(delta.text).not.toMatch(/<\|/);
  }
}

describe("HarmonyParser (SGLang's gpt-oss reasoning parser and tool detector)", () => {
  it("analysis → reasoning, a commentary call to functions.NAME with <|constrain|>json → a tool call, arguments as json.dumps", () => {
    expectBoth('<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Tokyo","days":2}<|call|>', {
      reasoning: "Need the weather.",
      content: null,
      calls: [{ name: "get_weather", arguments: '{"city": "Tokyo", "days": 2}' }],
    });
  });

  it("holds a client stop string back from the analysis (reasoning) too: the engine stopped at it", () => {
    const parser = new HarmonyParser({ toolCalls: false, stop: ["STOP"] });
    const deltas = [...["<|channel|>analysis<|message|>thinking ST", "OP"].flatMap((piece) => parser.push(piece)), ...parser.finish("STOP")];
    expect(deltas.map((delta) => (delta as { text: string }).text).join("")).toBe("thinking ");
    expect(parser.message().reasoning_content).toBe("thinking ");
  });

  it("final → content (to the end of the output: <|return|> was trimmed as the stop token)", () => {
    expectBoth("<|channel|>analysis<|message|>Simple.<|end|><|start|>assistant<|channel|>final<|message|>Hello there!", { reasoning: "Simple.", content: "Hello there!", calls: [] });
    expectBoth("<|channel|>analysis<|message|>Simple.<|end|><|start|>assistant<|channel|>final<|message|>Hello there!<|return|>", { reasoning: "Simple.", content: "Hello there!", calls: [] });
  });

  it("a preamble (commentary without a recipient) is content, once (SGLang's stream sends it twice), then the call", () => {
    expectBoth("<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary<|message|>Checking now.<|end|><|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>", {
      reasoning: "x",
      content: "Checking now.",
      calls: [{ name: "get_time", arguments: "{}" }],
    });
  });

  it("a call as the very first message is read (SGLang's streaming reads it; its non-stream path misses it)", () => {
    expectBoth('<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>', { reasoning: null, content: null, calls: [{ name: "get_weather", arguments: '{"city": "Oslo"}' }] });
  });

  it("drops a call without <|constrain|>json, to a tool not offered, with invalid JSON, or when the request parses no tools", () => {
    expectBoth('<|channel|>commentary to=functions.get_weather<|message|>{"city":"Oslo"}<|call|>', { reasoning: null, content: "", calls: [] });
    expectBoth('<|channel|>commentary to=functions.nope <|constrain|>json<|message|>{}<|call|>', { reasoning: null, content: "", calls: [] });
    expectBoth("<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{oops<|call|>", { reasoning: null, content: "", calls: [] });
    expectBoth('<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>', { reasoning: null, content: "", calls: [] }, false);
  });

  it("leaves out a client stop string the engine matched at the end", () => {
    const parser = new HarmonyParser({ toolCalls: false, stop: ["STOP"] });
    expect(parser.push("<|channel|>final<|message|>One, two, ST")).toEqual([{ kind: "content", text: "One, two, " }]);
    parser.push("OP");
    parser.finish("STOP");
    expect(parser.message().content).toBe("One, two, ");
  });

  it("streams reasoning and content as they come, holding back only what may start an end token", () => {
    const parser = new HarmonyParser({ toolCalls: true, tools: TOOLS });
    expect(parser.push("<|channel|>analysis<|message|>Thinking")).toEqual([{ kind: "reasoning", text: "Thinking" }]);
    expect(parser.push(" more<|e")).toEqual([{ kind: "reasoning", text: " more" }]);
    expect(parser.push("nd|><|start|>assistant<|channel|>final<|message|>Hi")).toEqual([{ kind: "content", text: "Hi" }]);
  });
});
