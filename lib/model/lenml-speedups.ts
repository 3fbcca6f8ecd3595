// What makes @lenml/tokenizers (the JavaScript tokenizer) fast enough for the proxy: its construction data released,
// its byte-level step and its word cache replaced by equivalent faster ones. Each applies only to the shapes this
// library version has and leaves anything else as it is; ids and text stay the library's (tests/proxy/model-tokenizer.test.ts).
import { LruCache } from "../lru-cache.ts";

/** The part of @lenml/tokenizers' tokenizer the proxy calls. */
export interface LenmlTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
}

/**
 * Lets go of what @lenml/tokenizers' BPE model keeps after construction but never reads again: the merges as pairs
 * (it encodes with `bpe_ranks`, built from them) and its config's copies of tokenizer.json's vocab and merges: a third
 * of the tokenizer's memory, which every full garbage collection of the proxy's heap would otherwise mark.
 * Checked against the shapes the library has; anything else is left as it is.
 */
export function releaseConstructionData(tokenizer: LenmlTokenizer): void {
  const model = (tokenizer as unknown as { model?: { merges?: unknown; bpe_ranks?: unknown; tokens_to_ids?: unknown; config?: Record<string, unknown> } }).model;
  if (!model || !(model.bpe_ranks instanceof Map) || !(model.tokens_to_ids instanceof Map) || !Array.isArray(model.merges)) return;
  model.merges = [];
  if (model.config) {
    delete model.config.merges;
    delete model.config.vocab;
  }
}

/**
 * The byte-level step of @lenml/tokenizers' pre-tokenizer (GPT-2's bytes-to-characters map, the second step of
 * Qwen's) maps each word with a TextEncoder call, an array of its bytes and a join, most of the time encoding takes.
 * Here each word's UTF-8 bytes (as TextEncoder makes them: a lone surrogate is U+FFFD) are mapped with the library's
 * own table as they are made. Ids and text are
 * the same (tests/proxy/model-tokenizer.test.ts). Applied only to a byte-level step of the shape this library
 * version has (a 256-entry table, no regex, no prefix space); anything else is left as it is.
 */
export function speedUpByteLevel(tokenizer: LenmlTokenizer): void {
  const sequence = (tokenizer as unknown as { pre_tokenizer?: { tokenizers?: unknown } }).pre_tokenizer;
  const steps = sequence && Array.isArray(sequence.tokenizers) ? (sequence.tokenizers as unknown[]) : sequence ? [sequence] : [];
  for (const candidate of steps) {
    const step = candidate as { byte_encoder?: unknown; text_encoder?: unknown; use_regex?: unknown; add_prefix_space?: unknown; pre_tokenize_text?: unknown; pre_tokenize?: unknown };
    if (!(step.text_encoder instanceof TextEncoder) || step.use_regex !== false || step.add_prefix_space || typeof step.pre_tokenize_text !== "function") continue;
    const encoder = step.byte_encoder as Record<number, unknown> | undefined;
    const table: string[] = [];
    for (let byte = 0; byte < 256; byte++) if (typeof encoder?.[byte] === "string") table.push(encoder[byte] as string);
    if (table.length !== 256) continue;
    const mapWord = (word: string): string => {
      let mapped = "";
      for (let index = 0; index < word.length; index++) {
        let code = word.charCodeAt(index);
        if (code < 0x80) mapped += table[code];
        else if (code < 0x800) mapped += table[0xc0 | (code >> 6)]! + table[0x80 | (code & 63)];
        else {
          if (code >= 0xd800 && code < 0xe000) {
            const low = code < 0xdc00 ? word.charCodeAt(index + 1) : NaN; // (NaN past the end)
            if (low >= 0xdc00 && low < 0xe000) {
              const point = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
              mapped += table[0xf0 | (point >> 18)]! + table[0x80 | ((point >> 12) & 63)] + table[0x80 | ((point >> 6) & 63)] + table[0x80 | (point & 63)];
              index++;
              continue;
            }
            code = 0xfffd; // a lone surrogate
          }
          mapped += table[0xe0 | (code >> 12)]! + table[0x80 | ((code >> 6) & 63)] + table[0x80 | (code & 63)];
        }
      }
      return mapped;
    };
    // (the library's pre_tokenize maps each word through pre_tokenize_text, one string each without a regex, and flattens)
    step.pre_tokenize = (input: string | string[]): string[] => (Array.isArray(input) ? input.map(mapWord) : [mapWord(input)]);
  }
}

/**
 * The BPE model's cache of words already merged is the library's LRU, which moves every hit to the end of its Map
 * (a delete and a set): the deleted entries make V8 rebuild the table again and again. A two-generation LruCache of
 * the same capacity, whose hits never delete, avoids that. Only what bpe(word) returned is kept, as before.
 * Applied only to a model with the cache shape this library version has (get, put, clear; cache_capacity).
 */
export function speedUpWordCache(tokenizer: LenmlTokenizer): void {
  const model = (tokenizer as unknown as { model?: { cache?: { get?: unknown; put?: unknown; clear?: unknown }; cache_capacity?: unknown } }).model;
  const cache = model?.cache;
  if (!model || !cache || typeof cache.get !== "function" || typeof cache.put !== "function" || typeof cache.clear !== "function") return;
  if (typeof model.cache_capacity !== "number" || !(model.cache_capacity > 0)) return;
  const capacity = model.cache_capacity;
  let words = new LruCache<string, string[]>(capacity);
  model.cache = {
    get: (word: string) => words.get(word),
    put: (word: string, merged: string[]) => words.set(word, merged),
    clear: () => void (words = new LruCache<string, string[]>(capacity)),
  };
}
