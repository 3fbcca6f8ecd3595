// A model's tokenizer (tokenizer.json through @lenml/tokenizers) with a segment cache: text is split at
// added tokens (which BPE never merges across), each plain segment is encoded once and reused, so a turn
// costs what its new messages cost. Owns encode/decode; knows nothing of chat templates.
import { TokenizerLoader } from "@lenml/tokenizers";
import type { TokenizerFiles } from "./model-files.ts";

interface LenmlTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
}

interface AddedToken {
  id: number;
  content: string;
  special: boolean;
}

export class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly capacity: number) {}
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }
  has(key: K): boolean {
    return this.map.has(key);
  }
  get size(): number {
    return this.map.size;
  }
}

export class ModelTokenizer {
  readonly addedTokens: ReadonlyMap<string, number>;
  readonly specialIds: ReadonlySet<number>;
  private readonly inner: LenmlTokenizer;
  private readonly splitter: RegExp | null;
  private readonly segments: LruCache<string, readonly number[]>;
  private readonly idToAdded: Map<number, string>;

  constructor(files: TokenizerFiles, cacheSegments = 4096) {
    this.inner = TokenizerLoader.fromPreTrained({ tokenizerJSON: files.tokenizerJson, tokenizerConfig: files.tokenizerConfig }) as unknown as LenmlTokenizer;
    const added = ((files.tokenizerJson as { added_tokens?: AddedToken[] }).added_tokens ?? []).filter((token) => token.content.length > 0);
    this.addedTokens = new Map(added.map((token) => [token.content, token.id]));
    this.idToAdded = new Map(added.map((token) => [token.id, token.content]));
    this.specialIds = new Set(added.filter((token) => token.special).map((token) => token.id));
    const sorted = [...this.addedTokens.keys()].sort((a, b) => b.length - a.length);
    this.splitter = sorted.length > 0 ? new RegExp(`(${sorted.map(escapeRegExp).join("|")})`) : null;
    this.segments = new LruCache(cacheSegments);
  }

  /** Same ids as tokenizer(text, add_special_tokens=False).input_ids in transformers. */
  encode(text: string): number[] {
    if (!this.splitter) return this.encodeSegment(text).slice();
    const ids: number[] = [];
    for (const piece of text.split(this.splitter)) {
      if (piece.length === 0) continue;
      const addedId = this.addedTokens.get(piece);
      if (addedId !== undefined) ids.push(addedId);
      else for (const id of this.encodeSegment(piece)) ids.push(id);
    }
    return ids;
  }

  /**
   * encode(text) when the plain segments not cached yet total at most `budgetChars` (cheap enough for the event
   * loop); otherwise the uncached segments, to be encoded elsewhere (a worker) and given back with learnSegments.
   */
  encodeWithin(text: string, budgetChars: number): { ids: number[] } | { missing: string[] } {
    const pieces = this.splitter ? text.split(this.splitter) : [text];
    const missing: string[] = [];
    let missingChars = 0;
    for (const piece of pieces) {
      if (piece.length === 0 || this.addedTokens.has(piece) || this.segments.has(piece)) continue;
      missing.push(piece);
      missingChars += piece.length;
    }
    if (missingChars > budgetChars) return { missing };
    const ids: number[] = [];
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      const addedId = this.splitter ? this.addedTokens.get(piece) : undefined;
      if (addedId !== undefined) ids.push(addedId);
      else for (const id of this.encodeSegment(piece)) ids.push(id);
    }
    return { ids };
  }

  /** Caches segment ids encoded elsewhere (by a ModelTokenizer of the same files: encode(segment) for a plain segment). */
  learnSegments(segments: readonly string[], ids: readonly (readonly number[])[]): void {
    segments.forEach((segment, index) => this.segments.set(segment, ids[index]!));
  }

  decode(ids: readonly number[], options: { skipSpecialTokens?: boolean } = {}): string {
    return this.inner.decode([...ids], { skip_special_tokens: options.skipSpecialTokens ?? false });
  }

  /** The id of an added token such as `<|im_end|>`, or undefined. */
  tokenId(content: string): number | undefined {
    return this.addedTokens.get(content);
  }

  /** The text of an added token id, or undefined for ordinary ids. */
  addedTokenText(id: number): string | undefined {
    return this.idToAdded.get(id);
  }

  get cachedSegments(): number {
    return this.segments.size;
  }

  private encodeSegment(segment: string): readonly number[] {
    const cached = this.segments.get(segment);
    if (cached) return cached;
    const ids = this.inner.encode(segment, { add_special_tokens: false });
    this.segments.set(segment, ids);
    return ids;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
