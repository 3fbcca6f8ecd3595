// /v1/messages driven by the official @anthropic-ai/sdk client: streamed (messages.stream().finalMessage() and
// create({stream: true})) and whole, a tool_use closed by its tool_result, thinking, stop reasons, errors as the SDK's
// classes in Anthropic's shape, x-api-key and Bearer auth, Claude Code's side requests.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import { hashLogprob } from "../../rehearsal/model/responder.ts";
import { startHarness, type Harness } from "./harness.ts";

const TOOL_REPLY = '<think>\nI should list the files.\n</think>\n\n<tool_call>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>';

function script(prompt: string): string {
  if (prompt.includes("Your task is to create a detailed summary")) return "Summary: files were listed.";
  if (prompt.includes("Count to fifty")) return "one two three four five six seven eight nine ten eleven twelve";
  if (prompt.includes("Say stop")) return "Before STOP after";
  if (prompt.includes("List the files") && !prompt.includes("<tool_response>")) return TOOL_REPLY;
  if (prompt.includes("<tool_response>")) return "Here are the files: a.txt, b.txt.";
  return "<think>\nA greeting.\n</think>\n\nHello from the stand-in.";
}

const lsTool = { name: "ls", description: "List files.", input_schema: { type: "object" as const, properties: { path: { type: "string" } }, required: ["path"] } };
const chatTool: Tool = { type: "function", function: { name: "ls", description: "List files.", parameters: lsTool.input_schema } };
const SESSION = "0b7c9e3a-1d2f-4e5a-9b8c-7d6e5f4a3b2c";
const metadata = { user_id: `user_abc_account__session_${SESSION}` };

describe("the Messages API through the official @anthropic-ai/sdk client", () => {
  let harness: Harness;
  let client: Anthropic;
  beforeAll(async () => {
    harness = await startHarness({ script, apiKey: "KEY" });
    client = new Anthropic({ baseURL: harness.url, apiKey: "KEY", maxRetries: 0 });
  });
  afterAll(async () => harness.close());

  it("streams thinking and a tool_use; the tool_result of the next request closes the turn token-exactly", async () => {
    const system = [{ type: "text" as const, text: "You are Claude Code." }];
    const first: Anthropic.MessageParam = { role: "user", content: [{ type: "text", text: "List the files here" }] };
    const stream = client.messages.stream({ model: "qwen3-4b", max_tokens: 512, system, messages: [first], tools: [lsTool], metadata });
    const types: string[] = [];
    stream.on("streamEvent", (event) => types.push(event.type === "content_block_delta" ? `${event.type}:${event.delta.type}` : event.type));
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "I should list the files.", signature: "" },
      { type: "tool_use", id: expect.any(String), name: "ls", input: { path: "." } },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(types[0]).toBe("message_start");
    expect(types).toContain("content_block_delta:thinking_delta");
    expect(types).toContain("content_block_delta:input_json_delta");
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(harness.closed).toHaveLength(0);

    const toolUse = message.content[1] as Anthropic.ToolUseBlock;
    const next = await client.messages.create({
      model: "qwen3-4b",
      max_tokens: 512,
      system,
      metadata,
      tools: [lsTool],
      messages: [first, { role: "assistant", content: message.content as Anthropic.ContentBlockParam[] }, { role: "user", content: [{ type: "tool_result", tool_use_id: toolUse.id, content: "a.txt\nb.txt" }] }],
    });
    expect(next).toMatchObject({ type: "message", role: "assistant", stop_reason: "end_turn", content: [{ type: "text", text: "Here are the files: a.txt, b.txt." }] });
    expect(harness.closed).toHaveLength(1);
    const turn = harness.closed[0]!;
    expect(turn).toMatchObject({ sessionId: SESSION, turn: 0, finishReason: "tool_calls", closedBy: "next-request", approximate: false });
    expect(turn.decidedBy).toMatchObject({ session: "client-conversation", turnType: "agent-conversation" });
    expect(turn.nextState).toMatchObject({ role: "tool", messages: [{ role: "tool", tool_call_id: toolUse.id, content: "a.txt\nb.txt" }] });

    const messages: ChatMessage[] = [
      { role: "system", content: "You are Claude Code." },
      { role: "user", content: "List the files here" },
    ];
    const { tokenizer, template } = harness;
    expect(Array.from(turn.promptIds)).toEqual(await tokenizer.encode(template.render(messages, { tools: [chatTool], addGenerationPrompt: true })));
    const expected = [...(await tokenizer.encode(TOOL_REPLY)), tokenizer.tokenId("<|im_end|>")!];
    expect(turn.responseIds).toEqual(expected);
    expect(turn.responseLogProbs).toEqual(expected.map((id, index) => hashLogprob(index === 0 ? turn.promptIds.at(-1)! : expected[index - 1]!, id)));
  });

  it("streams text with create({stream: true}) incrementally, and answers whole with thinking first", async () => {
    const stream = await client.messages.create({ model: "qwen3-4b", max_tokens: 256, messages: [{ role: "user", content: "Hi there" }], stream: true });
    const deltas: string[] = [];
    let stop: string | null = null;
    for await (const event of stream) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") deltas.push(event.delta.text);
      if (event.type === "message_delta") stop = event.delta.stop_reason;
    }
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Hello from the stand-in.");
    expect(stop).toBe("end_turn");

    const whole = await client.messages.create({ model: "qwen3-4b", max_tokens: 256, messages: [{ role: "user", content: "Hi there" }] });
    expect(whole.content).toEqual([
      { type: "thinking", thinking: "A greeting.", signature: "" },
      { type: "text", text: "Hello from the stand-in." },
    ]);
  });

  it("says max_tokens and stop_sequence as Anthropic does", async () => {
    const cut = await client.messages.create({ model: "qwen3-4b", max_tokens: 4, messages: [{ role: "user", content: "Count to fifty" }] });
    expect(cut).toMatchObject({ stop_reason: "max_tokens", usage: { output_tokens: 4 } });
    const stopped = await client.messages.create({ model: "qwen3-4b", max_tokens: 64, stop_sequences: ["STOP"], messages: [{ role: "user", content: "Say stop" }] });
    expect(stopped).toMatchObject({ stop_reason: "stop_sequence", stop_sequence: "STOP", content: [{ type: "text", text: "Before" }] }); // (the answer ends trimmed, as on the chat route)
  });

  it("takes the key as x-api-key or Bearer, and answers errors in Anthropic's shape as the SDK's classes, changing no state", async () => {
    const bearer = new Anthropic({ baseURL: harness.url, authToken: "KEY", apiKey: null, maxRetries: 0 });
    await expect(bearer.messages.create({ model: "qwen3-4b", max_tokens: 16, messages: [{ role: "user", content: "Hi there" }] })).resolves.toMatchObject({ type: "message" });

    const stats = harness.proxy.stats();
    const events = harness.events.length;
    const wrong = new Anthropic({ baseURL: harness.url, apiKey: "WRONG", maxRetries: 0 }).messages.create({ model: "qwen3-4b", max_tokens: 16, messages: [{ role: "user", content: "Hi" }] });
    await expect(wrong).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    await expect(wrong).rejects.toMatchObject({ status: 401, error: { type: "error", error: { type: "authentication_error" } } });
    const noMax = client.messages.create({ model: "qwen3-4b", messages: [{ role: "user", content: "Hi" }] } as unknown as Anthropic.MessageCreateParamsNonStreaming);
    await expect(noMax).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(noMax).rejects.toMatchObject({ status: 400, error: { type: "error", error: { type: "invalid_request_error", message: expect.stringContaining("max_tokens") } } });
    const image = client.messages.create({ model: "qwen3-4b", max_tokens: 16, messages: [{ role: "user", content: [{ type: "image", source: { type: "url", url: "https://example.invalid/a.png" } }] }] });
    await expect(image).rejects.toMatchObject({ status: 400, error: { error: { message: expect.stringContaining("messages.0.content.0") } } });
    const count = client.messages.countTokens({ model: "qwen3-4b", messages: [{ role: "user", content: "Hi" }] });
    await expect(count).rejects.toBeInstanceOf(Anthropic.NotFoundError); // (not served: Claude Code estimates instead)
    await expect(count).rejects.toMatchObject({ error: { type: "error", error: { type: "not_found_error" } } });
    expect(harness.proxy.stats()).toEqual(stats);
    expect(harness.events.length).toBe(events);
  });

  it("answers 529 overloaded_error while the engines are not ready", async () => {
    const gated = await startHarness({ script, ready: () => false });
    try {
      const waiting = new Anthropic({ baseURL: gated.url, apiKey: "any", maxRetries: 0 }).messages.create({ model: "qwen3-4b", max_tokens: 16, messages: [{ role: "user", content: "Hi" }] });
      await expect(waiting).rejects.toBeInstanceOf(Anthropic.APIError);
      await expect(waiting).rejects.toMatchObject({ status: 529, error: { error: { type: "overloaded_error" } } });
    } finally {
      await gated.close();
    }
  });

  it("records Claude Code's side requests as side turns, and says why", async () => {
    await client.messages.create({ model: "qwen3-4b-utility", max_tokens: 512, metadata, system: "Analyze if this message indicates a new conversation topic.", messages: [{ role: "user", content: "Hi there" }] });
    await client.messages.create({
      model: "qwen3-4b",
      max_tokens: 512,
      metadata,
      tools: [lsTool],
      messages: [{ role: "user", content: "Your task is to create a detailed summary of the conversation so far." }],
    });
    const starts = harness.events.filter((event) => event.type === "turn-start").slice(-2);
    expect(starts.map((event) => event.type === "turn-start" && [event.sessionId, event.turnType])).toEqual([
      [SESSION, "side"],
      [SESSION, "side"],
    ]);
    expect(starts[0]!.type === "turn-start" && starts[0]!.decidedBy).toContain("is not the served model");
    expect(starts[1]!.type === "turn-start" && starts[1]!.decidedBy).toContain("Claude Code's side prompt");
  });
});
