// The ids of a short text made on the event loop from words Hugging Face's tokenizers encoded before. The library
// normalizes a text, pre-tokenizes it into words and runs its model on each word alone, so a text's ids are its
// words' ids in order. Normalizing and pre-tokenizing are the library's own synchronous calls; only the model's
// answer per word is kept, learned from the library's encodings. Ignores added tokens: callers cut text at them.
import type { Encoding, Normalizer, PreTokenizer, Tokenizer } from "tokenizers";
import { LruCache } from "../lru-cache.ts";

interface AddedTokenFlags {
  normalized?: boolean;
}

export class WordCache {
  private readonly ids: LruCache<string, readonly number[]>;

  private constructor(
    private readonly normalizer: Normalizer | null,
    private readonly preTokenizer: PreTokenizer,
    capacity: number,
  ) {
    this.ids = new LruCache(capacity);
  }

  /**
   * A cache for the library's tokenizer `rust` loaded from `tokenizerJson`, or null where a text's ids are not its
   * words' ids alone: no pre-tokenizer (a text is one word), a model other than BPE or one with dropout (a word's ids
   * drawn at random), or added tokens matched after a normalizer that changes text (the library would split at one
   * that normalizing makes, which cutting the raw text at added tokens does not see).
   */
  static of(rust: Tokenizer, tokenizerJson: Record<string, unknown>, capacity: number): WordCache | null {
    const model = tokenizerJson.model as { type?: string; dropout?: number | null } | undefined;
    if (model?.type !== "BPE" || (model.dropout ?? 0) > 0) return null;
    const preTokenizer = rust.getPreTokenizer();
    if (!preTokenizer) return null;
    const normalizer = isIdentity(tokenizerJson.normalizer) ? null : rust.getNormalizer();
    const added = (tokenizerJson.added_tokens as AddedTokenFlags[] | undefined) ?? [];
    if (normalizer && added.some((token) => token.normalized === true)) return null;
    return new WordCache(normalizer, preTokenizer, capacity);
  }

  /** The words of a text as the library's model sees them: normalized, pre-tokenized (byte-level mapped, …). */
  wordsOf(text: string): string[] {
    const split = this.preTokenizer.preTokenizeString(this.normalizer ? this.normalizer.normalizeString(text) : text);
    const words = new Array<string>(split.length);
    for (let index = 0; index < split.length; index++) words[index] = split[index]![0];
    return words;
  }

  /** The ids of a text whose words are `words` when every word is known, else null. */
  idsOf(words: readonly string[]): number[] | null {
    const ids: number[] = [];
    for (const word of words) {
      const known = this.ids.get(word);
      if (known === undefined) return null;
      for (let index = 0; index < known.length; index++) ids.push(known[index]!);
    }
    return ids;
  }

  /**
   * Learns each word's ids from the library's encoding of the text `words` came from. The encoding's word index of
   * each token must line up with `words`, and a word's tokens must spell it (a BPE token is a piece of its word):
   * otherwise nothing of this text is learned. `ids`: the encoding's, when the caller has them already.
   */
  learn(words: readonly string[], encoding: Encoding, ids: readonly number[] = encoding.getIds()): void {
    const tokens = encoding.getTokens();
    const wordIds = encoding.getWordIds();
    const byWord: number[][] = [];
    const spelled: string[] = [];
    for (let index = 0; index < ids.length; index++) {
      const word = wordIds[index];
      if (word === undefined || word === null || word < 0 || word >= words.length || (word > 0 && byWord[word - 1] === undefined)) return;
      (byWord[word] ??= []).push(ids[index]!);
      spelled[word] = (spelled[word] ?? "") + tokens[index]!;
    }
    if (byWord.length !== words.length) return;
    for (let word = 0; word < words.length; word++) if (spelled[word] !== words[word]) return;
    for (let word = 0; word < words.length; word++) this.ids.set(words[word]!, byWord[word]!);
  }

  get size(): number {
    return this.ids.size;
  }
}

/** A normalizer that leaves every text as it is: none, or a sequence of none. */
function isIdentity(normalizer: unknown): boolean {
  if (normalizer === null || normalizer === undefined) return true;
  const sequence = normalizer as { type?: string; normalizers?: unknown[] };
  return sequence.type === "Sequence" && Array.isArray(sequence.normalizers) && sequence.normalizers.every(isIdentity);
}
