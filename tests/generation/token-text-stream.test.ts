import { describe, expect, it } from "vitest";
import { TokenTextStream } from "../../orchestrator/generation/token-text-stream.ts";
import { qwen3 } from "../proxy/harness.ts";

describe("TokenTextStream", () => {
  it("streams exactly the decoded text, never half a character, without special tokens", async () => {
    const { tokenizer } = await qwen3();
    const text = "Héllo 世界 😀 𓀀 龘🦜 done <think>x</think> <tool_call>";
    const ids = [...(await tokenizer.encode(text)), tokenizer.tokenId("<|im_end|>")!];
    for (const step of [1, 2, 3]) {
      const stream = new TokenTextStream(tokenizer);
      const pieces: string[] = [];
      for (let index = 0; index < ids.length; index += step) pieces.push(stream.push(ids.slice(index, index + step)));
      pieces.push(stream.flush());
      for (const piece of pieces) expect(piece).not.toContain("\uFFFD");
      expect(pieces.join("")).toBe(text);
    }
  });
});

describe("ModelTokenizer.tokenText", () => {
  it("is each id decoded alone, special tokens kept, a piece of a character as U+FFFD, the same when asked again", async () => {
    const { tokenizer } = await qwen3();
    const ids = [...(await tokenizer.encode("Héllo 𓀀 <think>x</think>")), tokenizer.tokenId("<|im_end|>")!];
    const texts = ids.map((id) => tokenizer.tokenText(id));
    expect(texts).toEqual(ids.map((id) => tokenizer.decode([id])));
    expect(texts.at(-1)).toBe("<|im_end|>");
    expect(texts.some((text) => text.includes("\uFFFD"))).toBe(true); // 𓀀 takes several byte-level tokens
    expect(ids.map((id) => tokenizer.tokenText(id))).toEqual(texts);
  });
});
