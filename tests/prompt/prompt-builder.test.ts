import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { TokenizerFiles } from "../../lib/model/model-files.ts";
import { hfTokenizer } from "../lib/hf-tokenizer.ts";
import { chatRequestSchema, type ChatMessage, type ChatRequest } from "../../contracts/chat.ts";
import { PromptBuilder } from "../../orchestrator/prompt/prompt-builder.ts";
import { endsInsideReasoning } from "../../lib/model/parsers/answer-parser.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { PromptPool } from "../../orchestrator/prompt/prompt-pool.ts";
import { INTERNAL_CONTEXT, openclawFixture, openclawSystemPrompt, openclawTools, userTurn } from "../proxy/fixtures.ts";
import { qwen3 } from "../proxy/harness.ts";

/** The builtin Qwen3 files with a chat template the compiled port does not claim (same output): rendered by the interpreter. */
async function interpretedQwen3(): Promise<{ folder: string; template: ChatTemplate; files: TokenizerFiles }> {
  const files = await loadTokenizerFiles("builtin:qwen3");
  const folder = await mkdtemp(path.join(tmpdir(), "interpreted-qwen3-"));
  const tokenizerConfig = { ...files.tokenizerConfig, chat_template: `${String(files.tokenizerConfig.chat_template)}{#- interpreted #}` };
  await writeFile(path.join(folder, "tokenizer.json"), JSON.stringify(files.tokenizerJson));
  await writeFile(path.join(folder, "tokenizer_config.json"), JSON.stringify(tokenizerConfig));
  const loaded = await loadTokenizerFiles(folder);
  return { folder, template: new ChatTemplate(loaded), files: loaded };
}

describe("prompt builder", () => {
  const pools: PromptPool[] = [];
  afterAll(async () => Promise.all(pools.map((pool) => pool.close())));

  it("renders an interpreted template in a worker, not on this thread: the same ids as rendering here", async () => {
    const { folder, template, files } = await interpretedQwen3();
    expect(template.isCompiled).toBe(false);
    const pool = new PromptPool(folder, 1);
    pools.push(pool);
    const tokenizer = new ModelTokenizer(files);
    const builder = new PromptBuilder(template, tokenizer, pool);
    pool.start();
    expect(await builder.verifyPool()).toBe(true);
    let renderedHere = 0;
    const render = template.render.bind(template);
    template.render = (...args) => (renderedHere++, render(...args));
    const tools = openclawTools();
    const library = hfTokenizer(files.tokenizerJson);
    for (const name of ["main-turn-1", "tool-turn-2"] as const) {
      const request = chatRequestSchema.parse(openclawFixture(name).body);
      const raw = Buffer.from(JSON.stringify(openclawFixture(name).body));
      const built = await builder.buildRequest(request, raw, name);
      const messages = [{ role: "system" as const, content: openclawSystemPrompt(48_000, ` ${name}`) }, userTurn("s", 1, true), INTERNAL_CONTEXT];
      const fromMessages = await builder.build(messages, tools, undefined, name);
      expect(renderedHere, "rendered in the worker").toBe(0);
      const expected = await library.encode(render(request.messages, { tools: request.tools ?? null, addGenerationPrompt: true, extra: request.chat_template_kwargs ?? undefined }));
      expect(Array.from(built.ids), name).toEqual(expected);
      expect(Array.from(fromMessages.ids)).toEqual(await library.encode(render(messages, { tools, addGenerationPrompt: true })));
    }
  });

  it("builds requests on this thread with the compiled template: same ids as jinja and the library's encode of the whole text", async () => {
    const { template } = await qwen3();
    const files = await loadTokenizerFiles("builtin:qwen3");
    const tokenizer = new ModelTokenizer(files); // a fresh segment cache: the system prompt is new to it
    const library = hfTokenizer(files.tokenizerJson);
    const builder = new PromptBuilder(template, tokenizer, null);
    const tools = openclawTools();
    const system: ChatMessage = { role: "system", content: openclawSystemPrompt(48_000, " in-thread") };
    const history: ChatMessage[] = [system];
    const requests: ChatRequest[] = [];
    for (let turn = 1; turn <= 6; turn++) {
      history.push(userTurn("h", turn, turn === 1));
      requests.push({ messages: [...history, INTERNAL_CONTEXT], tools, ...(turn % 3 === 0 ? { chat_template_kwargs: { enable_thinking: false } } : {}) } as ChatRequest);
      history.push(
        turn % 2 === 0
          ? { role: "assistant", content: null, reasoning_content: "check the file", tool_calls: [{ id: `call_${turn}`, type: "function", function: { name: "read", arguments: `{"path": "${turn}.md"}` } }] }
          : { role: "assistant", content: `<think>\nturn ${turn}\n</think>\n\nDone with ${turn}.` },
      );
      if (turn % 2 === 0) history.push({ role: "tool", content: `contents of ${turn}.md`, tool_call_id: `call_${turn}` });
    }
    for (const name of ["main-turn-1", "main-turn-2", "tool-turn-1", "tool-turn-2"] as const) requests.push(chatRequestSchema.parse(openclawFixture(name).body));
    for (const request of requests) {
      const built = await builder.buildRequest(request, null, "h");
      const text = template.renderJinja(request.messages, { tools: request.tools ?? null, addGenerationPrompt: true, extra: (request.chat_template_kwargs ?? undefined) });
      expect(Array.from(built.ids)).toEqual(await library.encode(text));
      expect(built.idsJsonParts?.join(",")).toBe(built.ids.join(",")); // what the engine request carries
      expect(built.startsInReasoning).toBe(endsInsideReasoning(text));
    }
    expect(tokenizer.cachedSegments).toBeGreaterThan(0);
  });

  it("warms a long reply's segments, as OpenClaw replays it, so the session's next prompt finds them cached; short replies are left alone", async () => {
    const { template } = await qwen3();
    const files = await loadTokenizerFiles("builtin:qwen3");
    const tokenizer = new ModelTokenizer(files);
    const library = hfTokenizer(files.tokenizerJson);
    const builder = new PromptBuilder(template, tokenizer, null);
    const system: ChatMessage = { role: "system", content: "You are a careful assistant." };
    const first = userTurn("warm", 1, true);
    const long = Array.from({ length: 40 }, (_, index) => `Step ${index}: read file-${index * 7}.md, then patch line ${index * 13}.`).join(" ");
    const written = long.replaceAll("Step", "Stage");
    const args = JSON.stringify({ path: "notes.md", content: written }); // (the template re-serialises arguments: look for the text)
    const replies = [
      { reply: { role: "assistant" as const, content: long, reasoning_content: "I should list the steps." }, replayed: { role: "assistant" as const, content: long }, next: userTurn("warm", 2, false), secret: long },
      {
        reply: { role: "assistant" as const, content: null, reasoning_content: "Write the notes.", tool_calls: [{ id: "call_1", type: "function" as const, function: { name: "write", arguments: args } }] },
        replayed: { role: "assistant" as const, content: null, tool_calls: [{ id: "call1", type: "function" as const, function: { name: "write", arguments: args } }] },
        next: { role: "tool" as const, content: "written", tool_call_id: "call1" },
        secret: written,
      },
    ];
    for (const { reply, replayed, next, secret } of replies) {
      const messages: ChatMessage[] = [system, first, replayed, next];
      const text = template.render(messages, { tools: openclawTools(), addGenerationPrompt: true });
      expect(tokenizer.uncachedSegments(text).some((segment) => segment.includes(secret))).toBe(true); // not cached yet
      const warmed = await builder.warmReply(reply);
      expect(warmed.some((segment) => segment.includes(secret))).toBe(true);
      expect(tokenizer.uncachedSegments(text).filter((segment) => segment.includes(secret))).toEqual([]);
      expect(Array.from((await builder.buildRequest({ messages, tools: openclawTools() } as ChatRequest, null, "warm")).ids)).toEqual(await library.encode(text));
    }
    expect(await builder.warmReply({ role: "assistant", content: "Short answer." })).toEqual([]);
    expect(await new PromptBuilder(template, tokenizer, null, { warmReplies: false }).warmReply(replies[0]!.reply)).toEqual([]); // switched off
  });
});
