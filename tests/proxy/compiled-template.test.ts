// The plain-code port of Qwen3's chat template renders exactly what @huggingface/jinja renders (and so gives the
// same prompt ids): recorded OpenClaw requests and seeded random multi-turn histories with tool calls, reasoning,
// tool results, developer messages, content parts and enable_thinking.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { chatRequestSchema, type ChatMessage, type Tool } from "../../contracts/chat.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { openclawTools } from "./fixtures.ts";
import { qwen3 } from "./harness.ts";

const FIXTURES = ["main-turn-1", "main-turn-2", "tool-turn-1", "tool-turn-2"];

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

const TEXTS = ["", " ", "\n", "hello", "<think>\nplan\n</think>\n\nanswer", "a</think>b", "\n\n<think> x </think>", "<tool_response>r</tool_response>", "<tool_response>half", "日本語 🙂", "line\nline\n", "</think>"];

function history(seed: number): { messages: ChatMessage[]; tools: Tool[] | null; extra: Record<string, unknown> | undefined; generation: boolean } {
  const next = random(seed);
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const messages: ChatMessage[] = [];
  if (next() < 0.8) messages.push({ role: pick(["system", "developer"] as const), content: pick(["You are helpful.", "sys\n", ""]) });
  const count = 1 + Math.floor(next() * 14);
  let call = 0;
  for (let index = 0; index < count; index++) {
    const kind = next();
    if (kind < 0.3) messages.push({ role: "user", content: next() < 0.2 ? [{ type: "text", text: pick(TEXTS) }, { type: "text", text: pick(TEXTS) }] : pick(TEXTS) });
    else if (kind < 0.65) {
      const calls = next() < 0.4 ? Array.from({ length: 1 + Math.floor(next() * 2) }, () => ({ id: `call_${call++}`, type: "function" as const, function: { name: pick(["ls", "read"]), arguments: pick(['{"path": "."}', '{"a":[1,2,{"b":null}],"c":"é"}', '"text"', "broken {", "42", "{}"]) } })) : undefined;
      const reasoning = next() < 0.3 ? pick(["", "\nwhy\n", " because "]) : next() < 0.1 ? null : undefined;
      messages.push({ role: "assistant", content: next() < 0.2 ? null : pick(TEXTS), ...(calls ? { tool_calls: calls } : {}), ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}) });
    } else if (kind < 0.85) messages.push({ role: "tool", content: pick(TEXTS), tool_call_id: `call_${call}` });
    else messages.push({ role: pick(["system", "developer"] as const), content: pick(TEXTS) });
  }
  const tools = next() < 0.6 ? openclawTools().slice(0, 1 + Math.floor(next() * 3)) : null;
  const extra = next() < 0.5 ? undefined : { enable_thinking: pick([true, false, "false", null]) };
  return { messages, tools, extra, generation: next() < 0.8 };
}

describe("compiled Qwen3 chat template", () => {
  it("is used for Qwen3's template and matches jinja on 600 random histories", async () => {
    const { template } = await qwen3();
    expect(template.isCompiled).toBe(true);
    let withTools = 0;
    for (let seed = 1; seed <= 600; seed++) {
      const { messages, tools, extra, generation } = history(seed);
      if (tools) withTools++;
      const options = { tools, addGenerationPrompt: generation, extra };
      expect(template.render(messages, options), `seed ${seed}`).toBe(template.renderJinja(messages, options));
    }
    expect(withTools).toBeGreaterThan(200);
  });

  it("gives the same prompt ids as jinja on the recorded OpenClaw requests", async () => {
    const { template, tokenizer } = await qwen3();
    for (const name of FIXTURES) {
      const recorded = JSON.parse(readFileSync(new URL(`../fixtures/openclaw/${name}.json`, import.meta.url), "utf8")) as { body: unknown };
      const request = chatRequestSchema.parse(recorded.body);
      const options = { tools: request.tools ?? null, addGenerationPrompt: true, extra: (request.chat_template_kwargs ?? undefined) };
      const fast = template.render(request.messages, options);
      expect(fast).toBe(template.renderJinja(request.messages, options));
      expect(await tokenizer.encode(fast)).toEqual(await tokenizer.encode(template.renderJinja(request.messages, options)));
    }
  });

  it("is not used for any other template", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const source = files.tokenizerConfig.chat_template as string;
    const other = new ChatTemplate({ ...files, tokenizerConfig: { ...files.tokenizerConfig, chat_template: source.replace("# Tools", "# Functions") } });
    expect(other.isCompiled).toBe(false);
    const messages: ChatMessage[] = [{ role: "user", content: "hi" }];
    expect(other.render(messages, { tools: openclawTools().slice(0, 1), addGenerationPrompt: true })).toContain("# Functions");
  });
});
