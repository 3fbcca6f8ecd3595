// TokenDecoder (synchronous ids → text) against Hugging Face's tokenizers decoding the same ids, for the decoder
// chains of sentencepiece-style tokenizers (Llama 2, Mistral, Gemma: Replace, ByteFallback, Fuse, Strip; and
// Metaspace), on hand-made tokenizer.json files the library loads; Qwen3's byte-level one is in model-tokenizer.test.ts.
import { describe, expect, it } from "vitest";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { TokenDecoder } from "../../lib/model/token-decoder.ts";
import { hfTokenizer } from "./hf-tokenizer.ts";

const special = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });

/** A sentencepiece-style BPE vocabulary: three special tokens, the 256 byte tokens, ▁, letters, ▁-words and CJK. */
function sentencepieceJson(decoder: unknown): Record<string, unknown> {
  const vocab: Record<string, number> = { "<unk>": 0, "<s>": 1, "</s>": 2 };
  for (let byte = 0; byte < 256; byte++) vocab[`<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`] = 3 + byte;
  for (const piece of ["▁", "▁▁", "a", "b", "c", "h", "e", "l", "o", "▁hello", "▁world", "▁a", "lo", "世", "界", "▁世界", ".", "\n"]) vocab[piece] = Object.keys(vocab).length;
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: [special(0, "<unk>"), special(1, "<s>"), special(2, "</s>"), { ...special(Object.keys(vocab).length, "<tool>"), special: false }],
    normalizer: { type: "Sequence", normalizers: [{ type: "Prepend", prepend: "▁" }, { type: "Replace", pattern: { String: " " }, content: "▁" }] },
    pre_tokenizer: null,
    post_processor: null,
    decoder,
    model: { type: "BPE", dropout: null, unk_token: "<unk>", continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab, merges: [] },
  };
}

const LLAMA2_DECODER = {
  type: "Sequence",
  decoders: [{ type: "Replace", pattern: { String: "▁" }, content: " " }, { type: "ByteFallback" }, { type: "Fuse" }, { type: "Strip", content: " ", start: 1, stop: 0 }],
};
const METASPACE_DECODER = { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true };

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

describe("TokenDecoder", () => {
  for (const [name, decoder] of [["Replace + ByteFallback + Fuse + Strip (Llama 2, Mistral)", LLAMA2_DECODER], ["Metaspace", METASPACE_DECODER]] as const) {
    it(`decodes as the library does: ${name}, random ids with byte runs (valid UTF-8 and not) and added tokens`, async () => {
      const json = sentencepieceJson(decoder);
      const library = hfTokenizer(json);
      const ours = new TokenDecoder(json);
      const size = Object.keys((json.model as { vocab: object }).vocab).length + 1;
      const utf8 = [...new TextEncoder().encode("é世🙂")].map((byte) => 3 + byte); // byte tokens that make characters
      const next = random(name.length);
      for (let sample = 0; sample < 300; sample++) {
        const ids: number[] = [];
        for (let length = Math.floor(next() * 12); length > 0; length--) {
          if (next() < 0.1) ids.push([0, 1, 2, size - 1][Math.floor(next() * 4)]!); // the added tokens, special or not
          else if (next() < 0.2) ids.push(...utf8.slice(Math.floor(next() * utf8.length)));
          else ids.push(Math.floor(next() * size));
        }
        for (const skip of [false, true]) expect(ours.decode(ids, skip), `${JSON.stringify(ids)} skip=${skip}`).toBe(await library.decode(ids, skip));
      }
      expect(ours.piecesConcatenate).toBe(false); // the first token's space is stripped: pieces do not join
    });
  }

  it("encodes and decodes a sentencepiece tokenizer through ModelTokenizer as the library does", async () => {
    const json = sentencepieceJson(LLAMA2_DECODER);
    const library = hfTokenizer(json);
    const tokenizer = new ModelTokenizer({ source: "test", tokenizerJson: json, tokenizerConfig: {} });
    for (const text of ["hello world", " hello<tool> world", "世界.\n<s>hello</s>", "ü ß"]) {
      const ids = await tokenizer.encode(text);
      expect(ids, text).toEqual(await library.encode(text));
      expect(tokenizer.decode(ids), text).toBe(await library.decode(ids, false));
    }
  });

  it("refuses a decoder it does not know, by name, with the ones it does", () => {
    expect(() => new TokenDecoder({ model: { vocab: {} }, decoder: { type: "WordPiece", prefix: "##" } })).toThrow(/decoder "WordPiece" is not one this project decodes/);
  });
});
