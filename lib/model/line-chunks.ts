// Long text cut at line starts chosen by a hash of the line, so a file that comes back with a few lines changed is cut
// the same way away from them and its other chunks are found in the segment cache; and whether a tokenizer's
// pre-tokenizer allows such cuts (Qwen's split regex, then byte-level). Ignores encoding itself.

/** Plain segments longer than this are cut at line starts; shorter ones stay whole. */
export const LINE_CUT_CHARS = 2048;
/** The shortest chunk lineChunks makes (but the last). */
const MIN_LINE_CHUNK = 256;
/** A line start that qualifies is a cut when the hash of its line is 0 modulo this (about every 4th). */
const LINE_CUT_EVERY = 4;

/**
 * The pre-tokenizer regex of Qwen2 / Qwen2.5 / Qwen3 (tokenizer.json's Split pattern). With it, a pre-token ends
 * just after the last newline of a run of whitespace: such a run is matched by `\s*[\r\n]+` up to its last newline
 * (that alternative comes before the other whitespace ones), ` ?[^\s\p{L}\p{N}]+[\r\n]*` ends with the newlines
 * it takes, and no other alternative takes a newline. So a text can be cut just after a newline that is followed by
 * spaces or tabs (or nothing) and then a character that is not whitespace, and each part encoded alone: BPE never
 * merges across pre-tokens, and NFC composes nothing with a newline. Checked against the library on random text in
 * tests/proxy/model-tokenizer.test.ts.
 */
const QWEN_SPLIT_PATTERN = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** Whether tokenizer.json pre-tokenizes with exactly Qwen's split regex and then byte-level, normalised by NFC or not at all. */
export function splitsAtNewlineRuns(tokenizerJson: unknown): boolean {
  const json = tokenizerJson as { normalizer?: { type?: string } | null; pre_tokenizer?: { type?: string; pretokenizers?: Array<{ type?: string; pattern?: { Regex?: string }; behavior?: string; invert?: boolean; use_regex?: boolean }> } };
  if (json.normalizer && json.normalizer.type !== "NFC") return false;
  const steps = json.pre_tokenizer?.type === "Sequence" ? json.pre_tokenizer.pretokenizers ?? [] : [];
  return (
    steps.length === 2 &&
    steps[0]!.type === "Split" &&
    steps[0]!.pattern?.Regex === QWEN_SPLIT_PATTERN &&
    steps[0]!.behavior === "Isolated" &&
    steps[0]!.invert === false &&
    steps[1]!.type === "ByteLevel" &&
    steps[1]!.use_regex === false
  );
}

/**
 * `text` cut at some line starts: just after a newline whose line goes on with spaces or tabs, if any, and then a
 * printable ASCII character (an indented line of code qualifies; a line of whitespace does not). Which line starts
 * are cuts depends on the line (a hash of it), not on positions, so a text that comes back with a few lines changed
 * is cut the same way away from them and its other chunks are found in the cache. Chunks are at least
 * MIN_LINE_CHUNK characters. A file read again with one line edited costs the encoding of the chunks around that
 * line, not of the whole file, and usually stays under INLINE_ENCODE_CHARS, so no worker round trip.
 */
export function lineChunks(text: string): string[] {
  const chunks: string[] = [];
  let from = 0;
  for (let newline = text.indexOf("\n", MIN_LINE_CHUNK - 1); newline >= 0 && newline < text.length - 1; newline = text.indexOf("\n", newline + 1)) {
    const at = newline + 1;
    let first = at;
    while (text.charCodeAt(first) === 0x20 || text.charCodeAt(first) === 0x09) first++;
    const code = text.charCodeAt(first); // (NaN past the end)
    if (!(code >= 0x21 && code <= 0x7e) || lineHash(text, first) % LINE_CUT_EVERY !== 0) continue;
    chunks.push(text.slice(from, at));
    from = at;
    newline = Math.min(text.length, from + MIN_LINE_CHUNK - 1) - 1;
  }
  chunks.push(from === 0 ? text : text.slice(from));
  return chunks;
}

/** FNV-1a of the line from `at`: up to its newline, at most 64 characters. */
function lineHash(text: string, at: number): number {
  let hash = 0x811c9dc5;
  for (let index = at, end = Math.min(text.length, at + 64); index < end; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x0a) break;
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  return hash >>> 0;
}
