// Incremental detokenization of a growing list of output ids: emits text only once it is complete
// (no half UTF-8 characters), special tokens such as <|im_end|> left out. Ignores parsing and sampling.
import type { ModelTokenizer } from "../tokenizer/model-tokenizer.ts";

export class TokenTextStream {
  private readonly ids: number[] = [];
  private prefixOffset = 0;
  private readOffset = 0;

  constructor(private readonly tokenizer: ModelTokenizer) {}

  /** Appends ids; returns the text that is now certain. */
  push(ids: readonly number[]): string {
    for (const id of ids) this.ids.push(id);
    return this.advance(false);
  }

  /** Everything still held back (an incomplete character at the very end is emitted as is). */
  flush(): string {
    return this.advance(true);
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
    return this.tokenizer.decode(this.ids.slice(start, end), { skipSpecialTokens: true });
  }
}
