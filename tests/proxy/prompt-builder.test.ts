import { afterAll, describe, expect, it } from "vitest";
import { endsInsideReasoning, PromptBuilder } from "../../orchestrator/capture/prompt-builder.ts";
import { PromptPool } from "../../orchestrator/capture/prompt-pool.ts";
import { INTERNAL_CONTEXT, openclawSystemPrompt, openclawTools, userTurn } from "./fixtures.ts";
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
      expect(built!.ids).toEqual(tokenizer.encode(template.render(messages, { tools, addGenerationPrompt: true })));
    }
    expect(pooledLate).toBeLessThan(inlineLate / 2);
  });

  it("detects a generation prompt that opens <think>", () => {
    expect(endsInsideReasoning("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n")).toBe(true);
    expect(endsInsideReasoning("<|im_start|>assistant\n<think>\n\n</think>\n\n")).toBe(false);
    expect(endsInsideReasoning("<|im_start|>assistant\n<think>\nold\n</think>\n\nx<|im_end|>\n<|im_start|>assistant\n")).toBe(false);
  });
});
