// The reference for tokenizer tests: Hugging Face's tokenizers library itself (npm `tokenizers`, the Rust library
// transformers and SGLang use), loaded fresh from a tokenizer.json, encoding each text whole: no cache, no split.
import { Tokenizer } from "tokenizers";

export interface HfTokenizer {
  /** tokenizer(text, add_special_tokens=False).input_ids */
  encode(text: string): Promise<number[]>;
  decode(ids: readonly number[], skipSpecialTokens: boolean): Promise<string>;
}

export function hfTokenizer(tokenizerJson: Record<string, unknown>): HfTokenizer {
  const tokenizer = Tokenizer.fromString(JSON.stringify(tokenizerJson));
  return {
    encode: async (text) => (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds(),
    decode: (ids, skipSpecialTokens) => tokenizer.decode([...ids], skipSpecialTokens),
  };
}
