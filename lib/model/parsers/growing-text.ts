// Text that grows piece by piece while markup is open (a tool call's body, a calls section): which closing tag ends
// it, searched only in what came since plus an overlap, the whole text on demand, and when reading the whole again
// is worth it. Searching or re-reading the whole text on every piece cost time quadratic in its length: a 96 KB
// argument streamed 4 characters at a time took 20 s of CPU on the event loop.

/** While the text is this short, a reader may look at it on every piece. */
const READ_ALWAYS_UP_TO = 4096;

export interface TagAt {
  /** Offset of the first complete closing tag in the whole text, or -1. */
  index: number;
  tag: string;
}

export class GrowingText {
  private parts: string[] = [];
  private size = 0;
  /** The last characters, as many as a tag split across pieces may have begun with. */
  private tail = "";
  private readonly overlap: number;
  private readAt = -1;

  constructor(private readonly tags: readonly string[]) {
    this.overlap = Math.max(0, ...tags.map((tag) => tag.length - 1));
  }

  get length(): number {
    return this.size;
  }

  /** Adds a piece; the first closing tag complete in the text now (none was before it), or index -1. */
  append(piece: string): TagAt {
    const window = this.tail + piece;
    let found: TagAt = { index: -1, tag: "" };
    for (const tag of this.tags) {
      const at = window.indexOf(tag);
      if (at >= 0 && (found.index < 0 || at < found.index)) found = { index: at, tag };
    }
    if (found.index >= 0) found = { index: this.size - this.tail.length + found.index, tag: found.tag };
    if (piece.length > 0) {
      this.parts.push(piece);
      this.size += piece.length;
      this.tail = window.slice(Math.max(0, window.length - this.overlap));
    }
    return found;
  }

  /** The whole text (joined once per call that follows new pieces). */
  text(): string {
    if (this.parts.length > 1) this.parts = [this.parts.join("")];
    return this.parts[0] ?? "";
  }

  /**
   * Whether a reader of the whole text should look again now: on every new piece while the text is short, then once
   * it grew by an eighth since the last look, so that all looks together cost time linear in the final length.
   */
  readDue(): boolean {
    if (this.size === this.readAt) return false;
    if (this.size > READ_ALWAYS_UP_TO && this.size - this.readAt < this.size / 8) return false;
    this.readAt = this.size;
    return true;
  }
}
