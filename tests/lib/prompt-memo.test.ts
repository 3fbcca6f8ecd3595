// ModelTokenizer.encodePrompt with a memo key reuses the ids of the key's previous text up to the end of an added
// token: the ids (and their JSON) must always equal the library's encode of the whole text, whatever the new text
// shares with the old one.
import { describe, expect, it } from "vitest";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { hfTokenizer } from "./hf-tokenizer.ts";

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

const PARTS = ["<|im_start|>", "<|im_end|>", "\n", "user", "assistant", " hello", "world", "<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<|im_", "end|>", " 日本", "🙂", "  ", "x"];

describe("encodePrompt with a memo key", () => {
  it("gives the ids of a plain encode for growing, edited, shrunk and unrelated texts", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const memoized = new ModelTokenizer(files);
    const plain = hfTokenizer(files.tokenizerJson);
    const next = random(7);
    const texts = new Map<string, string>();
    for (let step = 0; step < 400; step++) {
      const key = `s${Math.floor(next() * 4)}`;
      let text = texts.get(key) ?? "";
      const action = next();
      if (action < 0.6) for (let count = Math.floor(next() * 6); count >= 0; count--) text += PARTS[Math.floor(next() * PARTS.length)];
      else if (action < 0.8) text = text.slice(0, Math.floor(next() * text.length)) + PARTS[Math.floor(next() * PARTS.length)]; // edited/shrunk
      else if (action < 0.9) text = text.slice(0, Math.floor(next() * text.length)); // cut, maybe inside an added token
      else text = PARTS[Math.floor(next() * PARTS.length)]!; // unrelated
      texts.set(key, text);
      const encoded = await memoized.encodePrompt(text, key);
      const expected = await plain.encode(text);
      expect(Array.from(encoded.ids), `step ${step}: ${JSON.stringify(text)}`).toEqual(expected);
      // the engine request's input_ids, made from the cached segments' JSON
      expect(JSON.parse(`[${encoded.idsJsonParts.join(",")}]`), `step ${step}: JSON`).toEqual(expected);
    }
  });
});
