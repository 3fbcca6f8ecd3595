import { describe, expect, it } from "vitest";
import type { AssistantMessage, Tool } from "../../../contracts/chat.ts";
import { createAnswerParser, endsInsideReasoning, type AnswerParserSettings } from "../../../lib/model/parsers/answer-parser.ts";
import { HarmonyParser } from "../../../lib/model/parsers/harmony-parser.ts";

const TOOLS: Tool[] = [{ type: "function", function: { name: "read", parameters: { type: "object", properties: { path: { type: "string" } } } } }];

/** The answer message after feeding `text` whole and one character at a time (both must agree). */
function answer(text: string, settings: Partial<AnswerParserSettings> & Pick<AnswerParserSettings, "parsers" | "flavor">) {
  const messages = [[text], [...text]].map((pieces) => {
    const { parser } = createAnswerParser({ tools: [], startsInReasoning: false, ...settings });
    for (const piece of pieces) parser.push(piece);
    parser.finish();
    return parser.message();
  });
  expect(withoutIds(messages[1]!)).toEqual(withoutIds(messages[0]!));
  return messages[0]!;
}

/** The message with each call as its function only (ids are random). */
function withoutIds(message: AssistantMessage) {
  return message.tool_calls ? { ...message, tool_calls: message.tool_calls.map((call) => call.function) } : message;
}

describe("answer parser, per slime flavour", () => {
  const qwen = { toolCallParser: "qwen", reasoningParser: "qwen3" };
  const glm = { toolCallParser: "glm45", reasoningParser: "glm45" };

  it("upstream (SGLang 4ad990ba): a tool call inside an unclosed <think> ends the reasoning and is a call", () => {
    const qwenText = '<think>\nI should read it.\n<tool_call>\n{"name": "read", "arguments": {"path": "a.txt"}}\n</tool_call>';
    expect(withoutIds(answer(qwenText, { parsers: qwen, tools: TOOLS, flavor: "upstream" }))).toEqual({
      role: "assistant",
      content: null,
      reasoning_content: "\nI should read it.\n",
      tool_calls: [{ name: "read", arguments: '{"path": "a.txt"}' }],
    });
    const glmText = "<think>I should read it.<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>a.txt</arg_value>\n</tool_call>";
    expect(withoutIds(answer(glmText, { parsers: glm, tools: TOOLS, flavor: "upstream" }))).toMatchObject({ reasoning_content: "I should read it.", tool_calls: [{ name: "read", arguments: '{"path": "a.txt"}' }] });
    // the output starting inside reasoning (the prompt opened <think>)
    expect(withoutIds(answer('thinking<tool_call>\n{"name": "read", "arguments": {}}\n</tool_call>', { parsers: qwen, tools: TOOLS, flavor: "upstream", startsInReasoning: true }))).toMatchObject({
      reasoning_content: "thinking",
      tool_calls: [{ name: "read", arguments: "{}" }],
    });
  });

  it("fork (SGLang dce8b060): the same output stays reasoning, as that SGLang's reasoning parser keeps it", () => {
    const text = '<think>\nI should read it.\n<tool_call>\n{"name": "read", "arguments": {"path": "a.txt"}}\n</tool_call>';
    const message = answer(text, { parsers: qwen, tools: TOOLS, flavor: "fork" });
    expect(message.tool_calls).toBeUndefined();
    expect(message.reasoning_content).toBe('I should read it.\n<tool_call>\n{"name": "read", "arguments": {"path": "a.txt"}}\n</tool_call>');
    // deepseek-r1 has no tool start token in either SGLang
    expect(answer("plan<tool_call>x", { parsers: { toolCallParser: "deepseekv3", reasoningParser: "deepseek-r1" }, flavor: "upstream" }).reasoning_content).toBe("plan<tool_call>x");
  });

  it("whitespace at the edges: kept under upstream, trimmed under fork", () => {
    const text = "<think>\nLet me think\n</think>\n\nThe answer is 42.\n";
    expect(answer(text, { parsers: qwen, flavor: "upstream" })).toEqual({ role: "assistant", content: "\n\nThe answer is 42.\n", reasoning_content: "\nLet me think\n" });
    expect(answer(text, { parsers: qwen, flavor: "fork" })).toEqual({ role: "assistant", content: "The answer is 42.", reasoning_content: "Let me think" });
  });

  it("output starting inside reasoning: the model's own <think> and repeated ones are stripped, under both flavours", () => {
    for (const flavor of ["upstream", "fork"] as const) {
      expect(answer("<think>I need to think.</think>42", { parsers: { toolCallParser: null, reasoningParser: "deepseek-r1" }, flavor })).toEqual({ role: "assistant", content: "42", reasoning_content: "I need to think." });
      expect(answer("<think><think>Let me think</think>42", { parsers: qwen, flavor })).toEqual({ role: "assistant", content: "42", reasoning_content: "Let me think" });
      expect(answer("<think>x</think>42", { parsers: qwen, flavor, startsInReasoning: true })).toEqual({ role: "assistant", content: "42", reasoning_content: "x" });
    }
  });

  it("a partial </think> at the very end is dropped, not flushed as reasoning", () => {
    for (const flavor of ["upstream", "fork"] as const) {
      expect(answer("<think>thought</thi", { parsers: qwen, flavor })).toEqual({ role: "assistant", content: "", reasoning_content: "thought" });
    }
  });

  it("reads gpt-oss with the harmony parser, keeping text outside messages as content", () => {
    const { parser, harmony } = createAnswerParser({ parsers: { toolCallParser: "gpt-oss", reasoningParser: "gpt-oss" }, tools: [], startsInReasoning: false, flavor: "fork" });
    expect(harmony).toBe(true);
    expect(parser).toBeInstanceOf(HarmonyParser);
    parser.push("Some text <|channel|>analysis<|message|>why<|end|> more <|start|>assistant<|channel|>final<|message|>answer<|return|>");
    parser.finish();
    expect(parser.message()).toEqual({ role: "assistant", content: "Some text  more answer", reasoning_content: "why" });
  });

  it("detects a generation prompt that opens <think>", () => {
    expect(endsInsideReasoning("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n")).toBe(true);
    expect(endsInsideReasoning("<|im_start|>assistant\n<think>\n\n</think>\n\n")).toBe(false);
    expect(endsInsideReasoning("<|im_start|>assistant\n<think>\nold\n</think>\n\nx<|im_end|>\n<|im_start|>assistant\n")).toBe(false);
  });
});
