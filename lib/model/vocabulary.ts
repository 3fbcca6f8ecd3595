// Whether two tokenizers give every token the same id: the model's vocabulary and the added tokens of their
// tokenizer.json files. A teacher that scores the policy's token ids must read them as the policy does.
import type { TokenizerFiles } from "./model-files.ts";

/** token → id of a tokenizer.json: the model's vocabulary (an object for BPE / WordPiece, [piece, score] rows for Unigram) and its added tokens. */
function tokenIds(files: TokenizerFiles): Map<string, number> {
  const ids = new Map<string, number>();
  const vocab = (files.tokenizerJson.model as { vocab?: unknown } | undefined)?.vocab;
  if (Array.isArray(vocab)) vocab.forEach((row, id) => Array.isArray(row) && typeof row[0] === "string" && ids.set(row[0], id));
  else if (vocab && typeof vocab === "object") for (const [token, id] of Object.entries(vocab)) if (typeof id === "number") ids.set(token, id);
  for (const added of (files.tokenizerJson.added_tokens as { id?: unknown; content?: unknown }[] | undefined) ?? []) {
    if (typeof added.content === "string" && typeof added.id === "number") ids.set(added.content, added.id);
  }
  return ids;
}

/** The first difference between the two tokenizers' token ids, in words; null when they are the same. */
export function vocabularyDifference(a: TokenizerFiles, b: TokenizerFiles): string | null {
  const left = tokenIds(a);
  const right = tokenIds(b);
  for (const [token, id] of left) {
    const other = right.get(token);
    if (other !== id) return `${JSON.stringify(token)} is id ${id} in ${a.source} and ${other === undefined ? "absent" : `id ${other}`} in ${b.source}`;
  }
  if (right.size !== left.size) return `${b.source} has ${right.size} tokens, ${a.source} ${left.size}`;
  return null;
}
