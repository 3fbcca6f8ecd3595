import { afterAll, describe, expect, it } from "vitest";
import { EncodePool } from "../../orchestrator/capture/encode-pool.ts";
import { endsInsideReasoning, PromptBuilder } from "../../orchestrator/capture/prompt-builder.ts";
import { builtinQwen3Folder } from "../../orchestrator/tokenizer/model-files.ts";
import { INTERNAL_CONTEXT, openclawSystemPrompt, openclawTools, userTurn } from "./fixtures.ts";
import { qwen3 } from "./harness.ts";

describe("prompt builder", () => {
  const pool = new EncodePool(builtinQwen3Folder(), 1);
  afterAll(async () => pool.close());

  it("encodes exactly like ModelTokenizer, with large first-time segments in a worker that leaves the event loop free", async () => {
    const { tokenizer, template } = await qwen3();
    const builder = new PromptBuilder(template, tokenizer, pool);
    await pool.encode("warm up"); // worker start-up (loading tokenizer.json) is not what we measure

    // baseline: a fresh 48 KB segment encoded on the main thread
    const baselineText = openclawSystemPrompt(48_000, " baseline");
    const started = performance.now();
    tokenizer.encode(baselineText);
    const inlineMs = performance.now() - started;

    const messages = [{ role: "system" as const, content: openclawSystemPrompt(48_000, " pooled") }, userTurn("s", 1, true), INTERNAL_CONTEXT];
    const tools = openclawTools();
    let timerLateMs = -1;
    const timerSet = performance.now();
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        timerLateMs = performance.now() - timerSet;
        resolve();
      }, 1),
    );
    const built = await builder.build(messages, tools, undefined);
    await timer;
    expect(built.ids).toEqual(tokenizer.encode(template.render(messages, { tools, addGenerationPrompt: true })));
    expect(timerLateMs).toBeLessThan(Math.max(inlineMs / 2, 5));
  });

  it("detects a generation prompt that opens <think>", () => {
    expect(endsInsideReasoning("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n")).toBe(true);
    expect(endsInsideReasoning("<|im_start|>assistant\n<think>\n\n</think>\n\n")).toBe(false);
    expect(endsInsideReasoning("<|im_start|>assistant\n<think>\nold\n</think>\n\nx<|im_end|>\n<|im_start|>assistant\n")).toBe(false);
  });
});
