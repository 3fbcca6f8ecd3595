// A model's tokenizer: Hugging Face's own (the Rust `tokenizers` library, loaded from tokenizer.json; it encodes
// off the event loop) with a segment cache on top: text is split at added tokens, which the library splits at before
// anything else, and each plain segment is encoded once, so a turn costs what its new messages cost. Decoding is
// synchronous (token-decoder.ts). Owns encode/decode; knows nothing of chat templates.
import { Tokenizer } from "tokenizers";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { LruCache } from "../lru-cache.ts";
import type { TokenizerFiles } from "./model-files.ts";
import { TokenDecoder } from "./token-decoder.ts";

interface AddedToken {
  id: number;
  content: string;
  special: boolean;
  lstrip?: boolean;
  rstrip?: boolean;
  single_word?: boolean;
}

/** Most ids whose text tokenText keeps (above any vocabulary this project serves; ids beyond are decoded each time). */
const MAX_TOKEN_TEXTS = 300_000;
/** Segments longer than this are cached apart, at most LONG_SEGMENTS_KEPT of them (a 48 KB system prompt, tool results). */
const LONG_SEGMENT_CHARS = 4096;
const LONG_SEGMENTS_KEPT = 256;

/** A prompt's ids, and their JSON as cached parts (joined by commas: the ids joined by commas). Shared: read only. */
export interface EncodedPrompt {
  ids: Int32Array;
  idsJsonParts: readonly string[];
}

interface Memo {
  text: string;
  /** Offsets just after each added token, the ids up to each, and the JSON fragment count up to each. */
  cuts: number[];
  counts: number[];
  ids: Int32Array;
  fragments: string[];
  fragmentCounts: number[];
}

export class ModelTokenizer {
  readonly addedTokens: ReadonlyMap<string, number>;
  readonly specialIds: ReadonlySet<number>;
  /** Whether the text of each id, decoded alone, can be joined to give the text of the ids together. */
  readonly piecesConcatenate: boolean;
  private readonly rust: Tokenizer;
  private readonly decoder: TokenDecoder;
  /** Splits text at added tokens; null when segments cannot be encoded apart (see segmentable). */
  private readonly splitter: RegExp | null;
  private readonly segments: LruCache<string, readonly number[]>;
  private readonly longSegments: LruCache<string, readonly number[]>;
  /** Segments being encoded now: a second request for one waits for the same encode (undefined if that failed). */
  private readonly encoding = new Map<string, Promise<readonly number[] | undefined>>();
  private readonly idToAdded: Map<number, string>;
  private readonly tokenTexts = new Map<number, string>();
  /** Per memo key (a session): its last prompt, reused up to the last added token both prompts share. */
  private readonly memos = new LruCache<string, Memo>(128);
  /** The JSON of a cached segment's ids (the ids joined by commas), made once per segment ids array. */
  private readonly segmentJson = new WeakMap<readonly number[], string>();
  /** A text's split at added tokens up to the end of one is the same whatever follows (no added token contains another). */
  private readonly prefixReusable: boolean;

  constructor(files: TokenizerFiles, cacheSegments = 4096) {
    try {
      this.rust = Tokenizer.fromString(JSON.stringify(files.tokenizerJson));
    } catch (cause) {
      throw new OpenclawRlError("TEMPLATE_ERROR", `Hugging Face's tokenizers cannot load the tokenizer.json of ${files.source}: ${(cause as Error).message}`, {
        cause,
        hint: "point model.path (or model.tokenizer_path) at a checkpoint whose tokenizer.json transformers loads",
      });
    }
    this.decoder = new TokenDecoder(files.tokenizerJson);
    this.piecesConcatenate = this.decoder.piecesConcatenate;
    const added = ((files.tokenizerJson as { added_tokens?: AddedToken[] }).added_tokens ?? []).filter((token) => token.content.length > 0);
    this.addedTokens = new Map(added.map((token) => [token.content, token.id]));
    this.idToAdded = new Map(added.map((token) => [token.id, token.content]));
    this.specialIds = new Set(added.filter((token) => token.special).map((token) => token.id));
    const sorted = [...this.addedTokens.keys()].sort((a, b) => b.length - a.length);
    this.splitter = sorted.length > 0 && segmentable(files.tokenizerJson, added) ? new RegExp(`(${sorted.map(escapeRegExp).join("|")})`) : null;
    this.segments = new LruCache(cacheSegments);
    this.longSegments = new LruCache(Math.min(cacheSegments, LONG_SEGMENTS_KEPT));
    this.prefixReusable = this.splitter !== null && sorted.every((token) => sorted.every((other) => other === token || !token.includes(other)));
  }

  /** Same ids as tokenizer(text, add_special_tokens=False).input_ids in transformers. */
  async encode(text: string): Promise<number[]> {
    const { ids } = await this.encodePrompt(text);
    return Array.from(ids);
  }

  /**
   * The ids of a prompt. With `memoKey` (a session), the longest part of that key's previous prompt that this one
   * starts with, up to the end of an added token, is reused as is (its ids, no split or lookups): a session's prompt
   * grows at its end. The segments not cached yet are encoded together by the library, off the event loop. The ids
   * are an Int32Array (outside the JS heap) shared with the memo: read them, do not change them. `idsJsonParts`
   * joined by commas are the ids joined by commas: each segment's cached JSON, which an engine request copies into
   * its bytes instead of serialising every id each turn. Shared too.
   */
  async encodePrompt(text: string, memoKey?: string): Promise<EncodedPrompt> {
    if (!this.splitter) {
      const ids = Int32Array.from(await this.encodeWhole(text));
      return { ids, idsJsonParts: ids.length > 0 ? [ids.join(",")] : [] };
    }
    const memo = memoKey !== undefined && this.prefixReusable ? this.memos.get(memoKey) : undefined;
    const reused = memo ? sharedCut(memo, text) : -1; // index into memo.cuts
    const start = reused >= 0 ? memo!.cuts[reused]! : 0;
    const pieces = (start > 0 ? text.slice(start) : text).split(this.splitter);
    const fresh = await this.encodeMissing(pieces);
    // the pieces' ids, then one array of the final length: the memo's prefix copied once, no regrowth
    const resolved: (number | readonly number[])[] = [];
    const kept = reused >= 0 ? memo!.counts[reused]! : 0;
    let length = kept;
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      const part = this.addedTokens.get(piece) ?? fresh.get(piece) ?? this.cacheOf(piece).get(piece) ?? (await this.segmentIds(piece));
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
        fragments.push(String(part));
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

  /** Encodes and caches the segments of `text` not cached yet (ahead of the prompt that will hold them); returns them. */
  async warm(text: string): Promise<string[]> {
    if (!this.splitter) return [];
    return [...(await this.encodeMissing(text.split(this.splitter))).keys()];
  }

  /** The plain segments of `text` that are not cached yet (nor being encoded). */
  uncachedSegments(text: string): string[] {
    return this.missingSegments(this.splitter ? text.split(this.splitter) : [text]);
  }

  decode(ids: readonly number[] | Int32Array, options: { skipSpecialTokens?: boolean } = {}): string {
    return this.decoder.decode(ids, options.skipSpecialTokens ?? false);
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

  /** The plain segments among `pieces` that are neither cached nor being encoded, each once. */
  private missingSegments(pieces: readonly string[]): string[] {
    const missing = new Set<string>();
    for (const piece of pieces) {
      if (piece.length === 0 || this.addedTokens.has(piece) || this.encoding.has(piece) || this.cacheOf(piece).has(piece)) continue;
      missing.add(piece);
    }
    return [...missing];
  }

  /** Encodes the missing segments among `pieces` in one call to the library, caches them and returns them. */
  private async encodeMissing(pieces: readonly string[]): Promise<Map<string, readonly number[]>> {
    const fresh = new Map<string, readonly number[]>();
    const missing = this.missingSegments(pieces);
    if (missing.length === 0) return fresh;
    const batch = this.encodeBatch(missing);
    // (a failed batch fails this call; a request waiting on one of its segments encodes it again: no rejection unheard)
    missing.forEach((segment, index) => this.encoding.set(segment, batch.then((all) => all[index]!, () => undefined)));
    try {
      const all = await batch;
      missing.forEach((segment, index) => {
        this.cacheOf(segment).set(ownCopy(segment), all[index]!);
        fresh.set(segment, all[index]!);
      });
    } finally {
      for (const segment of missing) this.encoding.delete(segment);
    }
    return fresh;
  }

  /** A plain segment's ids: cached, being encoded, or encoded now. */
  private async segmentIds(segment: string): Promise<readonly number[]> {
    const cached = this.cacheOf(segment).get(segment) ?? (await this.encoding.get(segment));
    if (cached) return cached;
    const [ids] = await this.encodeBatch([segment]);
    this.cacheOf(segment).set(ownCopy(segment), ids!);
    return ids!;
  }

  private async encodeBatch(texts: string[]): Promise<number[][]> {
    const encodings = await this.rust.encodeBatch(texts, { addSpecialTokens: false });
    return encodings.map((encoding) => encoding.getIds());
  }

  private async encodeWhole(text: string): Promise<number[]> {
    return (await this.rust.encode(text, null, { addSpecialTokens: false })).getIds();
  }

  /** Where a segment's ids are cached: longSegments for a long one, else segments. */
  private cacheOf(segment: string): LruCache<string, readonly number[]> {
    return segment.length > LONG_SEGMENT_CHARS ? this.longSegments : this.segments;
  }

  private jsonOf(segmentIds: readonly number[]): string {
    let json = this.segmentJson.get(segmentIds);
    if (json === undefined) {
      json = segmentIds.join(",");
      this.segmentJson.set(segmentIds, json);
    }
    return json;
  }
}

/** The last of a memo's cuts up to which `text` is the memo's text (binary search), or -1. */
function sharedCut(memo: Memo, text: string): number {
  let reused = -1;
  for (let low = 0, high = memo.cuts.length - 1; low <= high; ) {
    const middle = (low + high) >> 1;
    const cut = memo.cuts[middle]!;
    // (=== on two slices compares memory; startsWith goes character by character, 40 times slower)
    if (cut <= text.length && text.slice(0, cut) === memo.text.slice(0, cut)) low = (reused = middle) + 1;
    else high = middle - 1;
  }
  return reused;
}

/**
 * Whether encoding the text between added tokens one piece at a time gives the library's ids for the whole text.
 * The library splits at added tokens first, then normalizes and pre-tokenizes each piece on its own, so it does,
 * unless an added token eats whitespace beside it (lstrip, rstrip), must stand alone as a word, or the
 * pre-tokenizer treats the first piece apart from the rest (Metaspace's prepend_scheme "first").
 */
function segmentable(tokenizerJson: Record<string, unknown>, added: readonly AddedToken[]): boolean {
  if (added.some((token) => token.lstrip || token.rstrip || token.single_word)) return false;
  const preTokenizer = JSON.stringify(tokenizerJson.pre_tokenizer ?? null);
  return !/"Metaspace"/.test(preTokenizer) || !/"prepend_scheme":"first"/.test(preTokenizer);
}

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
