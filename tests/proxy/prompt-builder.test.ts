import { afterAll, describe, expect, it } from "vitest";
import { chatRequestSchema, type ChatMessage, type ChatRequest } from "../../contracts/chat.ts";
import { endsInsideReasoning, PromptBuilder } from "../../orchestrator/capture/prompt-builder.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { PromptPool } from "../../orchestrator/capture/prompt-pool.ts";
import { INTERNAL_CONTEXT, openclawFixture, openclawSystemPrompt, openclawTools, userTurn } from "./fixtures.ts";
import { qwen3 } from "./harness.ts";

describe("prompt builder", () => {
  const pool = new PromptPool("builtin:qwen3", 1);
  afterAll(async () => pool.close());

  it("builds exactly what this thread builds, in a worker that leaves the event loop free", async () => {
    const { tokenizer, template } = await qwen3();
    const builder = new PromptBuilder(template, tokenizer, pool);
    pool.start();
    expect(await builder.verifyPool()).toBe(true); // also waits for start-up, which is not what we measure

    const inline = new PromptBuilder(template, tokenizer, null);
    const tools = openclawTools();
    /** How late a 1 ms timer fires while `work` runs: a synchronous encode delays it by the whole encode. */
    const lateness = async (work: () => Promise<unknown>): Promise<number> => {
      const set = performance.now();
      let late = -1;
      const timer = new Promise<void>((resolve) =>
        setTimeout(() => {
          late = performance.now() - set;
          resolve();
        }, 1),
      );
      await work();
      await timer;
      return late;
    };
    const inlineLate = await lateness(() => inline.encode(openclawSystemPrompt(48_000, " inline")));
    let pooledLate = Infinity;
    for (let attempt = 0; attempt < 3; attempt++) {
      const messages = [{ role: "system" as const, content: openclawSystemPrompt(48_000, ` pooled ${attempt}`) }, userTurn("s", 1, true), INTERNAL_CONTEXT];
      let built: Awaited<ReturnType<PromptBuilder["build"]>> | null = null;
      pooledLate = Math.min(pooledLate, await lateness(async () => (built = await builder.build(messages, tools, undefined))));
      expect(Array.from(built!.ids)).toEqual(tokenizer.encode(template.render(messages, { tools, addGenerationPrompt: true })));
    }
    expect(pooledLate).toBeLessThan(inlineLate / 2);
  });

  it("builds requests on this thread with the compiled template, sending only uncached long segments to the worker: same ids as jinja + a full encode", async () => {
    const { template } = await qwen3();
    const files = await loadTokenizerFiles("builtin:qwen3");
    const tokenizer = new ModelTokenizer(files); // a fresh segment cache: the system prompt is new to it
    const reference = new ModelTokenizer(files, 0);
    const builder = new PromptBuilder(template, tokenizer, pool);
    pool.start();
    expect(await builder.verifyPool()).toBe(true);
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
      expect(Array.from(built.ids)).toEqual(reference.encode(text));
      expect(built.idsJsonParts?.join(",")).toBe(built.ids.join(",")); // what the engine request carries
      expect(built.startsInReasoning).toBe(endsInsideReasoning(text));
    }
    expect(tokenizer.cachedSegments).toBeGreaterThan(0); // the worker's segments were learned here
  });

  it("warms a long reply's segments, as OpenClaw replays it, so the session's next prompt finds them cached; short replies are left alone", async () => {
    const { template } = await qwen3();
    const files = await loadTokenizerFiles("builtin:qwen3");
    const tokenizer = new ModelTokenizer(files);
    const reference = new ModelTokenizer(files, 0);
    const builder = new PromptBuilder(template, tokenizer, pool);
    pool.start();
    expect(await builder.verifyPool()).toBe(true);
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
      const before = tokenizer.encodeWithin(text, 0);
      expect("missing" in before && before.missing.some((segment) => segment.includes(secret))).toBe(true); // not cached yet
      const warmed = await builder.warmReply(reply, "warm");
      expect(warmed.some((segment) => segment.includes(secret))).toBe(true);
      const after = tokenizer.encodeWithin(text, 0);
      expect("missing" in after ? after.missing.filter((segment) => segment.includes(secret)) : []).toEqual([]);
      expect(Array.from((await builder.buildRequest({ messages, tools: openclawTools() } as ChatRequest, null, "warm")).ids)).toEqual(reference.encode(text));
    }
    expect(await builder.warmReply({ role: "assistant", content: "Short answer." }, "warm")).toEqual([]);
    expect(await new PromptBuilder(template, tokenizer, null).warmReply(replies[0]!.reply, "warm")).toEqual([]); // no pool: nothing to warm in
  });

  it("detects a generation prompt that opens <think>", () => {
    expect(endsInsideReasoning("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n")).toBe(true);
    expect(endsInsideReasoning("<|im_start|>assistant\n<think>\n\n</think>\n\n")).toBe(false);
    expect(endsInsideReasoning("<|im_start|>assistant\n<think>\nold\n</think>\n\nx<|im_end|>\n<|im_start|>assistant\n")).toBe(false);
  });
});
