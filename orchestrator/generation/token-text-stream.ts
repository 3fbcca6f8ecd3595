// Incremental detokenization of a growing list of output ids: emits text only once it is complete
// (no half UTF-8 characters), special tokens such as <|im_end|> left out (kept for formats written in them: gpt-oss's
// harmony channels). Ignores parsing and sampling.
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";

/** Per tokenizer and special-token choice: the text of each id decoded alone, when that is safe to concatenate (byte-level BPE). */
const pieceCaches = new WeakMap<ModelTokenizer, Map<boolean, { concatenates: boolean; pieces: Map<number, string | null> }>>();

function pieceCache(tokenizer: ModelTokenizer, skipSpecialTokens: boolean): { concatenates: boolean; pieces: Map<number, string | null> } {
  let byChoice = pieceCaches.get(tokenizer);
  if (!byChoice) pieceCaches.set(tokenizer, (byChoice = new Map()));
  let cache = byChoice.get(skipSpecialTokens);
  if (!cache) {
    // (pieces do not concatenate where the decoder treats the first token apart: sentencepiece's leading space)
    cache = { concatenates: tokenizer.piecesConcatenate, pieces: new Map() };
    byChoice.set(skipSpecialTokens, cache);
  }
  return cache;
}

export class TokenTextStream {
  private readonly ids: number[] = [];
  private prefixOffset = 0;
  private readOffset = 0;
  private readonly cache: { concatenates: boolean; pieces: Map<number, string | null> };

  private readonly skipSpecialTokens: boolean;

  constructor(
    private readonly tokenizer: ModelTokenizer,
    options: { keepSpecialTokens?: boolean } = {},
  ) {
    this.skipSpecialTokens = options.keepSpecialTokens !== true;
    this.cache = pieceCache(tokenizer, this.skipSpecialTokens);
  }

  /** Appends ids; returns the text that is now certain. */
  push(ids: readonly number[]): string {
    const fast = this.readOffset === this.ids.length ? this.completePieces(ids) : null;
    for (const id of ids) this.ids.push(id);
    if (fast !== null) {
      this.prefixOffset = this.readOffset = this.ids.length;
      return fast;
    }
    return this.advance(false);
  }

  /** Everything still held back (an incomplete character at the very end is emitted as is). */
  flush(): string {
    return this.advance(true);
  }

  /** The concatenated pieces when every id decodes to complete text on its own, else null. */
  private completePieces(ids: readonly number[]): string | null {
    if (!this.cache.concatenates) return null;
    let text = "";
    for (const id of ids) {
      let piece = this.cache.pieces.get(id);
      if (piece === undefined) {
        const decoded = this.tokenizer.decode([id], { skipSpecialTokens: this.skipSpecialTokens });
        piece = decoded.includes("\uFFFD") ? null : decoded;
        if (this.cache.pieces.size < 200_000) this.cache.pieces.set(id, piece);
      }
      if (piece === null) return null;
      text += piece;
    }
    return text;
  }

  private advance(final: boolean): string {
    if (this.ids.length === this.readOffset) return "";
    const prefixText = this.decode(this.prefixOffset, this.readOffset);
    const fullText = this.decode(this.prefixOffset, this.ids.length);
    if (fullText.length <= prefixText.length) return "";
    if (!final && fullText.endsWith("\uFFFD")) return "";
    this.prefixOffset = this.readOffset;
    this.readOffset = this.ids.length;
    return fullText.slice(prefixText.length);
  }

  private decode(start: number, end: number): string {
    if (end <= start) return "";
    return this.tokenizer.decode(this.ids.slice(start, end), { skipSpecialTokens: this.skipSpecialTokens });
  }
}
