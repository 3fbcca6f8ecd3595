// Long tool calls streamed in small pieces cost work linear in their length: GrowingText finds a closing tag split
// across pieces without searching the whole text again, and a format's reader sees the whole unit only when it grew by
// an eighth (before, every piece re-searched and re-read it: a 96 KB argument took 20 s of CPU for Qwen 2.5's markup
// and 3.5 s for DeepSeek's). The streamed call still reassembles to exactly the whole parse.
import { describe, expect, it } from "vitest";
import { GrowingText } from "../../../lib/model/parsers/growing-text.ts";
import { OutputParser } from "../../../lib/model/parsers/output-parser.ts";
import type { OutputDelta } from "../../../lib/model/parsers/output-delta.ts";
import { DEEPSEEK_V31 } from "../../../lib/model/parsers/tool-formats/deepseek.ts";
import { QWEN3_CODER } from "../../../lib/model/parsers/tool-formats/qwen3-coder.ts";
import type { ToolFormat } from "../../../lib/model/parsers/tool-formats/tool-format.ts";

const END = "<｜tool▁calls▁end｜>";

describe("GrowingText", () => {
  it("finds a closing tag split across pieces, at its offset in the whole text", () => {
    const text = new GrowingText([END]);
    const whole = `abc${END}rest`;
    const found = [...whole].map((char) => text.append(char));
    expect(found.findIndex((at) => at.index >= 0)).toBe(3 + END.length - 1);
    expect(found.find((at) => at.index >= 0)).toEqual({ index: 3, tag: END });
    expect(text.text()).toBe(whole);
  });

  it("reports the earliest of several tags complete in one piece, and none while absent", () => {
    const text = new GrowingText(["<|end|>", "<|call|>"]);
    expect(text.append("body <|cal").index).toBe(-1);
    expect(text.append("l|> then <|end|>")).toEqual({ index: 5, tag: "<|call|>" });
  });

  it("lets a reader look on every piece while short, then once per eighth of growth", () => {
    const text = new GrowingText([END]);
    let looks = 0;
    for (let size = 0; size < 96_000; size += 4) {
      text.append("abcd");
      if (text.readDue()) looks++;
    }
    expect(looks).toBeGreaterThanOrEqual(1024); // every piece up to 4 KB
    expect(looks).toBeLessThan(1024 + 30); // then 4 KB · (9/8)^k reaches 96 KB in 27 looks
  });
});

describe("a 96 KB call streamed 4 characters at a time", () => {
  const content = Array.from({ length: 3000 }, (_, line) => `line ${line}: const x = "a\\tb"; // ok\n`).join("");
  const tools = [{ type: "function" as const, function: { name: "write", parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } } } } }];
  const args = JSON.stringify({ path: "a.ts", content });
  const output = `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write<｜tool▁sep｜>${args}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;

  it("hands DeepSeek's reader the unit a bounded number of times over, and reassembles to the whole parse", () => {
    let read = 0;
    const counting: ToolFormat = {
      ...DEEPSEEK_V31,
      openUnit: (offered) => {
        const reader = DEEPSEEK_V31.openUnit(offered);
        return { read: (unit) => ((read += unit.length), reader.read(unit)) };
      },
    };
    const parser = new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, toolFormat: counting, tools });
    const deltas: OutputDelta[] = [];
    for (let at = 0; at < output.length; at += 4) deltas.push(...parser.push(output.slice(at, at + 4)));
    deltas.push(...parser.finish());
    expect(output.length).toBeGreaterThan(96_000);
    // every piece while under 4 KB (4 + 8 + … + 4096 ≈ 2.1 M characters), then about 9× the length in all; on every
    // piece it was about output.length² / 8 (1.7 G characters)
    expect(read).toBeLessThan(2_200_000 + 10 * output.length);
    const streamedArgs = deltas.flatMap((delta) => (delta.kind === "tool-call-arguments" ? [delta.text] : [])).join("");
    const whole = DEEPSEEK_V31.parse(output, tools)!.calls[0]!.arguments;
    expect(streamedArgs).toBe(whole);
    expect(parser.message().tool_calls?.[0]?.function).toEqual({ name: "write", arguments: whole });
    expect(deltas.filter((delta) => delta.kind === "tool-call-arguments").length).toBeGreaterThan(1000); // still streamed
  });

  it("streams Qwen 2.5's call as the model wrote it, every piece, to exactly its arguments", () => {
    const qwen = `<tool_call>\n{"name": "write", "arguments": ${args}}\n</tool_call>`;
    const parser = new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, tools });
    const deltas: OutputDelta[] = [];
    for (let at = 0; at < qwen.length; at += 4) deltas.push(...parser.push(qwen.slice(at, at + 4)));
    deltas.push(...parser.finish());
    const pieces = deltas.flatMap((delta) => (delta.kind === "tool-call-arguments" ? [delta.text] : []));
    expect(pieces.join("")).toBe(args);
    expect(pieces.length).toBeGreaterThan(20_000);
    expect(parser.message().tool_calls?.[0]?.function).toEqual({ name: "write", arguments: args });
  });

  it("keeps a Qwen 2.5 call whose name string never closes (a model looping until max tokens) as content", () => {
    // (its cost, which was quadratic: 96 KB took 7.8 s of CPU, 390 KB 145 s, is in tool-call-stream-bench.ts)
    const looping = `<tool_call>\n{"name": "${"abcd".repeat(24_000)}`;
    const parser = new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, tools });
    const deltas: OutputDelta[] = [];
    for (let at = 0; at < looping.length; at += 4) deltas.push(...parser.push(looping.slice(at, at + 4)));
    // given up as a call once 1 KB came without a complete head: the rest streams as content before the end
    expect(deltas.length).toBeGreaterThan(1000);
    deltas.push(...parser.finish());
    expect(parser.message()).toEqual({ role: "assistant", content: looping });
    expect(deltas.map((delta) => (delta as { text: string }).text).join("")).toBe(looping);
  });

  it("streams a Qwen3-Coder function with 10,000 parameters to exactly its arguments", () => {
    // (its cost, which grew as parameters × length: 408 KB took 3.8 s of CPU, 838 KB 14 s, is in tool-call-stream-bench.ts)
    const parameters = Array.from({ length: 10_000 }, (_, index) => `<parameter=p${index}>\nvalue ${index}\n</parameter>\n`).join("");
    const coder = `<tool_call>\n<function=write>\n${parameters}</function>\n</tool_call>`;
    const parser = new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, toolFormat: QWEN3_CODER, tools });
    const deltas: OutputDelta[] = [];
    for (let at = 0; at < coder.length; at += 4) deltas.push(...parser.push(coder.slice(at, at + 4)));
    deltas.push(...parser.finish());
    const args = parser.message().tool_calls![0]!.function.arguments;
    expect(Object.keys(JSON.parse(args) as object)).toHaveLength(10_000);
    expect(deltas.flatMap((delta) => (delta.kind === "tool-call-arguments" ? [delta.text] : [])).join("")).toBe(args);
  });
});
