// "Did you mean": the recipe key nearest a misspelt one among the keys the schema allows at that level, by edit
// distance (at most a third of the key's length); nothing when none is that near.

/** The key of `known` nearest `key`, or null when none is within max(1, ⌊length / 3⌋) single-character edits. */
export function nearestKey(key: string, known: readonly string[]): string | null {
  const limit = Math.max(1, Math.floor(key.length / 3));
  let best: { key: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (best === null || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key ?? null;
}

/** Levenshtein distance (insert, delete, substitute), one row at a time. */
function editDistance(from: string, to: string): number {
  let previous = Array.from({ length: to.length + 1 }, (_, index) => index);
  for (let row = 1; row <= from.length; row++) {
    const current = [row];
    for (let column = 1; column <= to.length; column++) {
      const substitution = previous[column - 1]! + (from[row - 1] === to[column - 1] ? 0 : 1);
      current.push(Math.min(previous[column]! + 1, current[column - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[to.length]!;
}
