// /v1/responses driven by the official openai client (v6): streamed (.stream() and create({stream: true})) and whole,
// a tool call closed by its function_call_output, previous_response_id, errors as the SDK's classes, side requests.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import { hashLogprob } from "../../rehearsal/model/responder.ts";
import { startHarness, type Harness } from "./harness.ts";

const TOOL_REPLY = '<think>\nI should list the files.\n</think>\n\n<tool_call>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>';

function script(prompt: string): string {
  if (prompt.includes("CONTEXT CHECKPOINT COMPACTION")) return "Summary: files were listed.";
  if (prompt.includes("Count to fifty")) return "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen";
  if (prompt.includes("List the files") && !prompt.includes("<tool_response>")) return TOOL_REPLY;
  if (prompt.includes("<tool_response>")) return "Here are the files: a.txt, b.txt.";
  return "<think>\nA greeting.\n</think>\n\nHello from the stand-in.";
}

const lsTool = { type: "function" as const, name: "ls", description: "List files.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }, strict: false };
const chatTool: Tool = { type: "function", function: { name: "ls", description: "List files.", parameters: lsTool.parameters } };

describe("the Responses API through the official openai client", () => {
  let harness: Harness;
  let client: OpenAI;
  beforeAll(async () => {
    harness = await startHarness({ script, apiKey: "KEY" });
    client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "KEY", maxRetries: 0 });
  });
  afterAll(async () => harness.close());

  it("streams a tool call with its reasoning; the function_call_output of the next request closes the turn token-exactly", async () => {
    const headers = { session_id: "codex-conversation-1" };
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: [{ type: "input_text", text: "List the files here" }] }];
    const stream = client.responses.stream({ model: "qwen3-4b", instructions: "You are Codex.", input, tools: [lsTool], store: false }, { headers });
    const types: string[] = [];
    stream.on("event", (event) => types.push(event.type));
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    const [reasoning, call] = final.output;
    expect(reasoning).toMatchObject({ type: "reasoning", content: [{ type: "reasoning_text", text: "I should list the files." }] });
    expect(call).toMatchObject({ type: "function_call", name: "ls", status: "completed" });
    if (call?.type !== "function_call") throw new Error("no function call");
    expect(JSON.parse(call.arguments)).toEqual({ path: "." });
    expect(final.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    // OpenAI's sequence: created, in_progress, then each item opened, grown and closed, then completed
    expect(types.slice(0, 4)).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
    expect(types).toContain("response.reasoning_text.delta");
    expect(types.slice(types.indexOf("response.reasoning_text.done"))).toEqual([
      "response.reasoning_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      ...types.filter((type) => type === "response.function_call_arguments.delta"),
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(harness.closed).toHaveLength(0);

    // Codex (store: false) sends the whole input again, with the model's items and the tool's output
    const next = await client.responses.create(
      {
        model: "qwen3-4b",
        instructions: "You are Codex.",
        input: [...input, reasoning as OpenAI.Responses.ResponseInputItem, call, { type: "function_call_output", call_id: call.call_id, output: "a.txt\nb.txt" }],
        tools: [lsTool],
        store: false,
      },
      { headers },
    );
    expect(next.output_text).toBe("Here are the files: a.txt, b.txt.");
    expect(harness.closed).toHaveLength(1);
    const turn = harness.closed[0]!;
    expect(turn).toMatchObject({ sessionId: "codex-conversation-1", turn: 0, finishReason: "tool_calls", closedBy: "next-request", approximate: false });
    expect(turn.decidedBy).toMatchObject({ session: "client-conversation", turnType: "agent-conversation" });
    expect(turn.nextState).toMatchObject({ role: "tool", messages: [{ role: "tool", tool_call_id: call.call_id, content: "a.txt\nb.txt" }] });

    // token-exact: the prompt is the template's rendering of the converted conversation, the response the engine's ids
    const messages: ChatMessage[] = [
      { role: "system", content: "You are Codex." },
      { role: "user", content: [{ type: "text", text: "List the files here" }] },
    ];
    const { tokenizer, template } = harness;
    expect(Array.from(turn.promptIds)).toEqual(await tokenizer.encode(template.render(messages, { tools: [chatTool], addGenerationPrompt: true })));
    const expected = [...(await tokenizer.encode(TOOL_REPLY)), tokenizer.tokenId("<|im_end|>")!];
    expect(turn.responseIds).toEqual(expected);
    expect(turn.responseLogProbs).toEqual(expected.map((id, index) => hashLogprob(index === 0 ? turn.promptIds.at(-1)! : expected[index - 1]!, id)));
    expect(turn.response).toMatchObject({ reasoning_content: "I should list the files.", tool_calls: [{ id: call.call_id, function: { name: "ls" } }] });
  });

  it("streams text with create({stream: true}): ordered sequence numbers, item ids and indexes as the SDK types them", async () => {
    const stream = await client.responses.create({ model: "qwen3-4b", input: "Hi there", stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const texts = events.filter((event): event is OpenAI.Responses.ResponseTextDeltaEvent => event.type === "response.output_text.delta");
    expect(texts.length).toBeGreaterThan(1); // incremental, token by token
    expect(texts.map((event) => event.delta).join("")).toBe("Hello from the stand-in.");
    const done = events.find((event): event is OpenAI.Responses.ResponseOutputItemDoneEvent => event.type === "response.output_item.done" && event.item.type === "message");
    expect(done?.output_index).toBe(1); // after the reasoning item
    expect(texts.every((event) => event.item_id === done!.item.id && event.output_index === 1 && event.content_index === 0)).toBe(true);
    const completed = events.at(-1);
    expect(completed?.type).toBe("response.completed");
  });

  it("answers whole, goes on from previous_response_id, and refuses an unknown one as OpenAI does without changing state", async () => {
    const first = await client.responses.create({ model: "qwen3-4b", input: "Hi there" });
    expect(first).toMatchObject({ object: "response", status: "completed", output_text: "Hello from the stand-in." });
    expect(first.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    const closedBefore = harness.closed.length;
    const second = await client.responses.create({ model: "qwen3-4b", previous_response_id: first.id, input: "Thanks!" });
    expect(second.previous_response_id).toBe(first.id);
    expect(harness.closed).toHaveLength(closedBefore + 1);
    expect(harness.closed.at(-1)).toMatchObject({ closedBy: "next-request", nextState: { role: "user", text: "Thanks!" } });

    const stats = harness.proxy.stats();
    const events = harness.events.length;
    const unknown = client.responses.create({ model: "qwen3-4b", previous_response_id: "resp_unknown", input: "Hello?" });
    await expect(unknown).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(unknown).rejects.toMatchObject({ status: 400, code: "previous_response_not_found", param: "previous_response_id" });
    expect(harness.proxy.stats()).toEqual(stats);
    expect(harness.events.length).toBe(events);
  });

  it("refuses a bad body with a 400 naming the field, and a wrong key with a 401, changing no state", async () => {
    const stats = harness.proxy.stats();
    const events = harness.events.length;
    const bad = client.responses.create({ model: "qwen3-4b", input: [{ type: "function_call_output", output: "x" } as unknown as OpenAI.Responses.ResponseInputItem] });
    await expect(bad).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(bad).rejects.toMatchObject({ status: 400, param: "input.0.call_id" });
    const image = client.responses.create({ model: "qwen3-4b", input: [{ role: "user", content: [{ type: "input_image", image_url: "data:,", detail: "auto" }] }] });
    await expect(image).rejects.toMatchObject({ status: 400, param: "input.0.content.0", code: "unsupported_content" });
    const wrongKey = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "WRONG", maxRetries: 0 }).responses.create({ model: "qwen3-4b", input: "Hi" });
    await expect(wrongKey).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    expect(harness.proxy.stats()).toEqual(stats);
    expect(harness.events.length).toBe(events);
  });

  it("ends a response cut at max_output_tokens as incomplete", async () => {
    const response = await client.responses.create({ model: "qwen3-4b", input: "Count to fifty", max_output_tokens: 4 });
    expect(response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, usage: { output_tokens: 4 } });
  });

  it("records Codex's compaction request as a side turn of its conversation, and says why", async () => {
    const response = await client.responses.create(
      { model: "qwen3-4b", input: [{ role: "user", content: [{ type: "input_text", text: "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary." }] }], tools: [lsTool], store: false },
      { headers: { session_id: "codex-conversation-1" } },
    );
    expect(response.output_text).toBe("Summary: files were listed.");
    const start = harness.events.filter((event) => event.type === "turn-start").at(-1);
    expect(start).toMatchObject({ sessionId: "codex-conversation-1", turnType: "side" });
    expect(start?.type === "turn-start" && start.decidedBy).toContain("Codex's side prompt");
  });
});

describe("the Responses and Messages APIs in passthrough mode", () => {
  it("are refused with a 400 naming proxy.mode (the engine's own chat endpoint is relayed there), in each API's shape", async () => {
    const harness = await startHarness({ script, recipe: { proxy: { mode: "passthrough" } } });
    try {
      const responses = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "any", maxRetries: 0 }).responses.create({ model: "qwen3-4b", input: "Hi" });
      await expect(responses).rejects.toMatchObject({ status: 400, param: "proxy.mode", code: "unsupported_in_passthrough" });
      const answer = await fetch(`${harness.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "qwen3-4b", max_tokens: 8, messages: [{ role: "user", content: "Hi" }] }) });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: expect.stringContaining("proxy.mode tokens") } });
      expect(harness.proxy.stats().turns).toEqual({ main: 0, side: 0 });
    } finally {
      await harness.close();
    }
  });
});
