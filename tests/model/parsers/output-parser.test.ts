import { describe, expect, it } from "vitest";
import type { OutputDelta } from "../../../lib/model/parsers/output-delta.ts";
import { OutputParser } from "../../../lib/model/parsers/output-parser.ts";
import { holdBack } from "../../../lib/model/parsers/tag-holdback.ts";

function feed(parser: OutputParser, pieces: string[]): OutputDelta[] {
  const deltas: OutputDelta[] = [];
  for (const piece of pieces) deltas.push(...parser.push(piece));
  deltas.push(...parser.finish());
  return deltas;
}

function joined(deltas: OutputDelta[], kind: "content" | "reasoning"): string {
  return deltas.filter((delta) => delta.kind === kind).map((delta) => (delta as { text: string }).text).join("");
}

/** Splits text into single characters so every tag arrives in pieces. */
const chars = (text: string): string[] => [...text];

describe("OutputParser", () => {
  it("separates qwen3 reasoning from content, even with tags split across pieces", () => {
    for (const pieces of [["<think>\nLet me see.\n</think>\n\nHello world"], chars("<think>\nLet me see.\n</think>\n\nHello world")]) {
      const parser = new OutputParser({ reasoning: true, startInReasoning: false, toolCalls: false });
      const deltas = feed(parser, pieces);
      expect(joined(deltas, "reasoning")).toBe("Let me see.");
      expect(joined(deltas, "content")).toBe("Hello world");
      for (const delta of deltas) if (delta.kind === "content") expect(delta.text).not.toMatch(/[<>]/);
      expect(parser.message()).toEqual({ role: "assistant", content: "Hello world", reasoning_content: "Let me see." });
    }
  });

  it("starts inside reasoning when the generation prompt opened <think>", () => {
    const parser = new OutputParser({ reasoning: true, startInReasoning: true, toolCalls: false });
    const deltas = feed(parser, chars("thinking hard\n</think>\n\nDone."));
    expect(joined(deltas, "reasoning")).toBe("thinking hard");
    expect(joined(deltas, "content")).toBe("Done.");
  });

  it("never emits a partial tag as content and streams content before the end", () => {
    const parser = new OutputParser({ reasoning: true, startInReasoning: false, toolCalls: true });
    expect(parser.push("Hello")).toEqual([{ kind: "content", text: "Hello" }]);
    expect(parser.push(" there <tool")).toEqual([{ kind: "content", text: " there" }]);
    expect(parser.push("_c")).toEqual([]);
    const rest = parser.push('all>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>');
    expect(rest[0]).toMatchObject({ kind: "tool-call-start", index: 0, name: "ls" });
    expect((rest[0] as { id: string }).id).toMatch(/^call_[0-9a-f]{24}$/);
    const args = rest.filter((delta) => delta.kind === "tool-call-arguments").map((delta) => (delta as { text: string }).text).join("");
    expect(args).toBe('{"path": "."}');
    expect(parser.finish()).toEqual([]);
    const message = parser.message();
    expect(message.content).toBe("Hello there");
    expect(message.tool_calls?.[0]?.function).toEqual({ name: "ls", arguments: '{"path": "."}' });
  });

  it("streams tool-call arguments piece by piece, holding back only the closing brace", () => {
    const parser = new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true });
    const text = '<tool_call>\n{"name": "write", "arguments": {"path": "a.txt", "content": {"x": [1, 2]}}}\n</tool_call>\n<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>';
    const deltas = feed(parser, chars(text));
    const starts = deltas.filter((delta) => delta.kind === "tool-call-start");
    expect(starts.map((delta) => (delta as { name: string }).name)).toEqual(["write", "ls"]);
    const argsOf = (index: number): string =>
      deltas.filter((delta) => delta.kind === "tool-call-arguments" && delta.index === index).map((delta) => (delta as { text: string }).text).join("");
    expect(JSON.parse(argsOf(0))).toEqual({ path: "a.txt", content: { x: [1, 2] } });
    expect(argsOf(1)).toBe("{}");
    expect(joined(deltas, "content")).toBe("");
    expect(parser.message().content).toBeNull();
    expect(parser.hasToolCalls).toBe(true);
  });

  it("holds a client stop string back from the reasoning too: the engine stopped at it, and it is neither sent nor recorded", () => {
    for (const pieces of [["<think>\nabc ST", "OP"], ["<think>\nabc STOP"], ["<think>\nab", "c S", "T", "OP"]]) {
      const parser = new OutputParser({ reasoning: true, startInReasoning: false, toolCalls: false, stop: ["STOP"] });
      const deltas = [...pieces.flatMap((piece) => parser.push(piece)), ...parser.finish("STOP")];
      expect(deltas.map((delta) => (delta as { text: string }).text).join("")).toBe("abc");
      expect(parser.message().reasoning_content).toBe("abc");
    }
  });

  it("Qwen 2.5: the argument deltas add up to the recorded arguments when the call ends without its brace (max tokens, a stop string, a closing tag after whitespace)", () => {
    const cases: [string, string | null][] = [
      ['<tool_call>\n{"name": "search", "arguments": {"q": 1,\n  ', null], // cut off at max tokens after whitespace
      ['<tool_call>\n{"name": "search", "arguments": {\n  \n</tool_call>', null], // closed without the brace
      ['<tool_call>\n{"name": "search", "arguments": {"q" : END', "END"], // the engine stopped at a client stop string
    ];
    for (const [text, stop] of cases) {
      for (const pieces of [[text], chars(text)]) {
        const parser = new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, stop: stop ? [stop] : [] });
        const deltas = [...pieces.flatMap((piece) => parser.push(piece)), ...parser.finish(stop)];
        const sent = deltas.filter((delta) => delta.kind === "tool-call-arguments").map((delta) => (delta as { text: string }).text).join("");
        expect(sent, JSON.stringify(pieces)).toBe(parser.message().tool_calls![0]!.function.arguments);
        expect(sent).toBe(sent.trim());
      }
    }
  });

  it("Qwen 2.5: a name that is no JSON string (a raw control character, a bad escape) is no call: the markup stays content, nothing throws", () => {
    for (const name of ['"\nget_weather"', '"\\search"']) {
      const text = `Sure.<tool_call>\n{"name": ${name}, "arguments": {"city": "Oslo"}}\n</tool_call>`;
      for (const pieces of [[text], chars(text)]) {
        const parser = new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true });
        const deltas = feed(parser, pieces);
        expect(parser.hasToolCalls).toBe(false);
        expect(joined(deltas, "content")).toBe(text);
      }
    }
  });

  it("keeps tool-call markup as text when tool parsing is off (tool_choice none)", () => {
    const parser = new OutputParser({ reasoning: true, startInReasoning: false, toolCalls: false });
    const text = 'Sure <tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>';
    const deltas = feed(parser, chars(text));
    expect(joined(deltas, "content")).toBe(text);
    expect(parser.hasToolCalls).toBe(false);
  });

  it("turns an unparseable tool call back into content", () => {
    const parser = new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true });
    const deltas = feed(parser, ["<tool_call>\nnot json\n</tool_call>"]);
    expect(joined(deltas, "content")).toBe("<tool_call>\nnot json\n</tool_call>");
    expect(parser.hasToolCalls).toBe(false);
  });

  it("holds back a possible stop string and drops the matched one", () => {
    // (no reasoning parser: the content as written, also under trimmed edges, as dce8b060 strips only a reasoning read)
    const parser = new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: false, stop: ["END"] });
    expect(parser.push("abc E")).toEqual([{ kind: "content", text: "abc " }]);
    const deltas = [...parser.push("ND"), ...parser.finish("END")];
    expect(joined(deltas, "content")).toBe("");
    expect(parser.message().content).toBe("abc ");
    // after reasoning, trimmed edges hold the trailing whitespace back and drop it
    const reasoned = new OutputParser({ reasoning: true, startInReasoning: false, toolCalls: false, stop: ["END"] });
    expect(reasoned.push("<think>x</think> abc E")).toEqual([{ kind: "reasoning", text: "x" }, { kind: "content", text: "abc" }]);
    expect(joined([...reasoned.push("ND"), ...reasoned.finish("END")], "content")).toBe("");
    expect(reasoned.message().content).toBe("abc");
  });

  it("trimmed edges (fork) trim only with a reasoning parser: without one the content is as written (reasoning_parser.py:43-56@dce8b060 is the only strip)", () => {
    const plain = new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: false, edges: "trimmed" });
    expect(joined([...plain.push("\n  Hello "), ...plain.finish()], "content")).toBe("\n  Hello ");
    expect(plain.message()).toEqual({ role: "assistant", content: "\n  Hello " });
    const reasoned = new OutputParser({ reasoning: true, startInReasoning: false, toolCalls: false, edges: "trimmed" });
    expect(joined([...reasoned.push("\n  Hello "), ...reasoned.finish()], "content")).toBe("Hello");
    const forced = new OutputParser({ reasoning: true, startInReasoning: true, toolCalls: false, edges: "trimmed" });
    [...forced.push(" r </think>\n Hello "), ...forced.finish()];
    expect(forced.message()).toEqual({ role: "assistant", content: "Hello", reasoning_content: "r" });
  });

  it("holdBack finds the longest tag prefix at the end", () => {
    expect(holdBack("abc <tool_", ["<tool_call>"], false)).toBe(6);
    expect(holdBack("abc", ["<tool_call>"], false)).toBe(0);
    expect(holdBack("abc  \n", [], true)).toBe(3);
  });
});
