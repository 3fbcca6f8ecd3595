// A model's tokenizer (tokenizer.json through @lenml/tokenizers) with a segment cache: text is split at
// added tokens (which BPE never merges across), each plain segment (a long one from line chunks) is encoded once
// and reused, so a turn costs what its new messages cost. Owns encode/decode; knows nothing of chat templates.
import { TokenizerLoader } from "@lenml/tokenizers";
import { LruCache } from "../lru-cache.ts";
import { releaseConstructionData, speedUpByteLevel, speedUpWordCache, type LenmlTokenizer } from "./lenml-speedups.ts";
import { LINE_CUT_CHARS, lineChunks, splitsAtNewlineRuns } from "./line-chunks.ts";
import type { TokenizerFiles } from "./model-files.ts";

interface AddedToken {
  id: number;
  content: string;
  special: boolean;
}

/** Most ids whose text tokenText keeps (above any vocabulary this project serves; ids beyond are decoded each time). */
const MAX_TOKEN_TEXTS = 300_000;

export class ModelTokenizer {
  readonly addedTokens: ReadonlyMap<string, number>;
  readonly specialIds: ReadonlySet<number>;
  private readonly inner: LenmlTokenizer;
  private readonly splitter: RegExp | null;
  private readonly segments: LruCache<string, readonly number[]>;
  /**
   * Segments that are cut into line chunks (longer than LINE_CUT_CHARS), cached whole apart from `segments`, where
   * their chunks are: many long tool results, at dozens of chunks each, then never push the 48 KB system prompt out.
   */
  private readonly longSegments: LruCache<string, readonly number[]>;
  private readonly idToAdded: Map<number, string>;
  private readonly tokenTexts = new Map<number, string>();
  /**
   * Per memo key (a session): its last text, the offsets just after each added token, the ids up to each, and the
   * ids' JSON as fragments (one per piece: a cached segment's shared text, or an added token's id) with the
   * fragment count up to each cut.
   */
  private readonly memos = new LruCache<string, { text: string; cuts: number[]; counts: number[]; ids: Int32Array; fragments: string[]; fragmentCounts: number[] }>(128);
  /** The JSON of a cached segment's ids (the ids joined by commas), made once per segment ids array. */
  private readonly segmentJson = new WeakMap<readonly number[], string>();
  /** The JSON of each added token's id (a handful of entries). */
  private readonly addedIdJson = new Map<number, string>();
  /**
   * Whether a text's split at added tokens up to the end of one is the same whatever follows: true unless an added
   * token contains another one (then a longer match could start earlier).
   */
  private readonly prefixReusable: boolean;
  /** Long plain segments may be cut at line starts (see lineChunks): the pre-tokenizer is one this was checked for. */
  private readonly cutsLines: boolean;

  constructor(files: TokenizerFiles, cacheSegments = 4096) {
    // (the model section copied: the library keeps it as its config, and what it no longer needs is dropped from
    // that copy, not from the caller's files)
    const model = (files.tokenizerJson as { model?: unknown }).model;
    const tokenizerJSON = model && typeof model === "object" ? { ...files.tokenizerJson, model: { ...model } } : files.tokenizerJson;
    this.inner = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig: files.tokenizerConfig }) as unknown as LenmlTokenizer;
    releaseConstructionData(this.inner);
    speedUpByteLevel(this.inner);
    speedUpWordCache(this.inner);
    const added = ((files.tokenizerJson as { added_tokens?: AddedToken[] }).added_tokens ?? []).filter((token) => token.content.length > 0);
    this.addedTokens = new Map(added.map((token) => [token.content, token.id]));
    this.idToAdded = new Map(added.map((token) => [token.id, token.content]));
    this.specialIds = new Set(added.filter((token) => token.special).map((token) => token.id));
    const sorted = [...this.addedTokens.keys()].sort((a, b) => b.length - a.length);
    this.splitter = sorted.length > 0 ? new RegExp(`(${sorted.map(escapeRegExp).join("|")})`) : null;
    this.segments = new LruCache(cacheSegments);
    this.longSegments = new LruCache(Math.min(cacheSegments, LONG_SEGMENTS_KEPT));
    this.prefixReusable = this.splitter !== null && sorted.every((token) => sorted.every((other) => other === token || !token.includes(other)));
    this.cutsLines = splitsAtNewlineRuns(files.tokenizerJson);
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
   * With `memoKey` (a session), the longest part of that key's previous text that this text starts with, up to the
   * end of an added token, is reused as is (its ids, no split or lookups): a session's prompt grows at its end.
   * The ids are an Int32Array, whose store is outside the JS heap: a session's 13K-token prompt is not an array of
   * 100+ KB that young-generation collections copy (twice, while a request and its memo keep it) and promote.
   * They are shared with that memo: read them, do not change them. `idsJsonParts` joined by commas are
   * the ids joined by commas (what JSON.stringify(Array.from(ids)) has between its brackets): each segment's cached JSON, which
   * an engine request copies into its bytes instead of serialising every id each turn. Shared too.
   */
  encodeWithin(text: string, budgetChars: number, memoKey?: string): { ids: Int32Array; idsJsonParts: readonly string[] } | { missing: string[] } {
    const memo = memoKey !== undefined && this.prefixReusable ? this.memos.get(memoKey) : undefined;
    let reused = -1; // index into memo.cuts
    if (memo) {
      for (let low = 0, high = memo.cuts.length - 1; low <= high; ) {
        const middle = (low + high) >> 1;
        const cut = memo.cuts[middle]!;
        // (=== on two slices compares memory; startsWith goes character by character, 40 times slower)
        if (cut <= text.length && text.slice(0, cut) === memo.text.slice(0, cut)) low = (reused = middle) + 1;
        else high = middle - 1;
      }
    }
    const start = reused >= 0 ? memo!.cuts[reused]! : 0;
    const pieces = this.splitter ? (start > 0 ? text.slice(start) : text).split(this.splitter) : [text];
    const missing: string[] = [];
    let missingChars = 0;
    for (const piece of pieces) {
      if (piece.length === 0 || this.addedTokens.has(piece) || this.cacheOf(piece).has(piece)) continue;
      for (const chunk of this.chunksOf(piece)) {
        if (chunk !== piece && this.cacheOf(chunk).has(chunk)) continue;
        missing.push(chunk);
        missingChars += chunk.length;
      }
    }
    if (missingChars > budgetChars) return { missing };
    // the new pieces' ids first, then one array of the final length: the memo's prefix copied once, no regrowth
    const resolved: (number | readonly number[])[] = [];
    const kept = reused >= 0 ? memo!.counts[reused]! : 0;
    let length = kept;
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      const addedId = this.splitter ? this.addedTokens.get(piece) : undefined;
      const part = addedId ?? this.encodeSegment(piece);
      resolved.push(part);
      length += typeof part === "number" ? 1 : part.length;
    }
    const ids = new Int32Array(length);
    if (kept > 0) ids.set(memo!.ids.subarray(0, kept));
    const cuts = reused >= 0 ? memo!.cuts.slice(0, reused + 1) : [];
    const counts = reused >= 0 ? memo!.counts.slice(0, reused + 1) : [];
    const fragments = reused >= 0 ? memo!.fragments.slice(0, memo!.fragmentCounts[reused]!) : [];
    const fragmentCounts = reused >= 0 ? memo!.fragmentCounts.slice(0, reused + 1) : [];
    let offset = start;
    let filled = kept;
    let next = 0;
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      offset += piece.length;
      const part = resolved[next++]!;
      if (typeof part === "number") {
        ids[filled++] = part;
        fragments.push(this.addedJson(part));
        cuts.push(offset);
        counts.push(filled);
        fragmentCounts.push(fragments.length);
      } else {
        for (let index = 0; index < part.length; index++) ids[filled++] = part[index]!;
        if (part.length > 0) fragments.push(this.jsonOf(part));
      }
    }
    if (memoKey !== undefined && this.prefixReusable) this.memos.set(memoKey, { text, cuts, counts, ids, fragments, fragmentCounts });
    return { ids, idsJsonParts: fragments };
  }

  /**
   * A plain segment as the parts it is encoded from: itself, or, when it is longer than LINE_CUT_CHARS and the
   * pre-tokenizer allows it, its line chunks (lineChunks). Encoding the chunks one by one gives the segment's ids; a
   * long tool result or file that comes back with a few lines changed then finds most of its chunks in the cache.
   */
  private chunksOf(segment: string): string[] {
    return this.cutsLines && segment.length > LINE_CUT_CHARS ? lineChunks(segment) : [segment];
  }

  /** Where a segment's ids are cached: longSegments for one that is cut into line chunks, else segments. */
  private cacheOf(segment: string): LruCache<string, readonly number[]> {
    return this.cutsLines && segment.length > LINE_CUT_CHARS ? this.longSegments : this.segments;
  }

  /** Caches segment ids encoded elsewhere (by a ModelTokenizer of the same files: encode(segment) for a plain segment). */
  learnSegments(segments: readonly string[], ids: readonly (readonly number[])[]): void {
    segments.forEach((segment, index) => this.cacheOf(segment).set(ownCopy(segment), ids[index]!));
  }

  decode(ids: readonly number[] | Int32Array, options: { skipSpecialTokens?: boolean } = {}): string {
    return this.inner.decode(Array.from(ids), { skip_special_tokens: options.skipSpecialTokens ?? false });
  }

  /**
   * The text of one id decoded alone, special tokens kept: what an engine's log-prob entry shows for that token
   * (U+FFFD where the token is part of a character). Cached per id (at most one entry per vocabulary id).
   */
  tokenText(id: number): string {
    let text = this.tokenTexts.get(id);
    if (text === undefined) {
      text = this.decode([id]);
      if (this.tokenTexts.size < MAX_TOKEN_TEXTS) this.tokenTexts.set(id, text);
    }
    return text;
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
    return this.segments.size + this.longSegments.size;
  }

  private addedJson(id: number): string {
    let json = this.addedIdJson.get(id);
    if (json === undefined) this.addedIdJson.set(id, (json = String(id)));
    return json;
  }

  private jsonOf(segmentIds: readonly number[]): string {
    let json = this.segmentJson.get(segmentIds);
    if (json === undefined) {
      json = segmentIds.join(",");
      this.segmentJson.set(segmentIds, json);
    }
    return json;
  }

  /**
   * A plain segment's ids, cached. A long one is made from its line chunks (each cached too), and then cached whole
   * as well: a segment that comes back unchanged (the 48 KB system prompt) is one lookup and one JSON part.
   */
  private encodeSegment(segment: string): readonly number[] {
    const cache = this.cacheOf(segment);
    const cached = cache.get(segment);
    if (cached) return cached;
    const chunks = this.chunksOf(segment);
    let ids: number[];
    if (chunks.length === 1) ids = this.inner.encode(segment, { add_special_tokens: false });
    else {
      ids = [];
      for (const chunk of chunks) for (const id of this.encodeSegment(chunk)) ids.push(id);
    }
    cache.set(ownCopy(segment), ids);
    return ids;
  }
}

/** Long segments (cut into line chunks) kept whole, apart from the other segments and chunks. */
const LONG_SEGMENTS_KEPT = 256;
/**
 * A copy of a segment that does not share memory with the prompt it was split from. V8 keeps a substring of 13
 * characters or more as a slice of its parent, so a cached slice would pin a whole 60 KB prompt per entry (up to 4,096
 * of them), short segments too. Every segment is copied, whatever V8's threshold; this happens on cache misses only.
 */
function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
