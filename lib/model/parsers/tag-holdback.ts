// How much of a decoded text's end to hold back because it may be the start of a tag (or a stop string) that the
// next piece completes. Shared by the output parsers and the tool-call formats; ignores what the tags mean.

/** Characters at the end of `text` to hold back: a proper prefix of a tag (`whole`: or all of it), or (optionally) trailing whitespace. */
export function holdBack(text: string, tags: readonly string[], whitespace: boolean, whole = false): number {
  let keep = 0;
  for (const tag of tags) {
    for (let length = Math.min(whole ? tag.length : tag.length - 1, text.length); length > keep; length--) {
      if (text.endsWith(tag.slice(0, length))) {
        keep = length;
        break;
      }
    }
  }
  if (whitespace) {
    const match = /\s+$/.exec(text.slice(0, text.length - keep));
    if (match) keep += match[0].length;
  }
  return keep;
}

/**
 * What to hold back where a tag may be starting (its proper prefixes) or a client stop string may be (the whole of
 * it too: the engine ends the output with a matched stop string, and finish() leaves it out).
 */
export function holdBackTagsAndStops(text: string, tags: readonly string[], stops: readonly string[], whitespace: boolean): number {
  return Math.max(holdBack(text, tags, whitespace), holdBack(text, stops, whitespace, true));
}
