// Which evaluated weight version is the best so far: the highest held-out mean score (the chat sessions'), the
// earliest of equal ones (fewer training steps). One rule for the guard, the status screens and convert-checkpoint --best.

/** The best of `evaluated` (in evaluation order); versions with no scored session are never best; null when none scored. */
export function bestVersion<T extends { version: string; meanScore: number | null }>(evaluated: readonly T[]): T | null {
  let best: T | null = null;
  for (const metrics of evaluated) if (metrics.meanScore !== null && (best === null || metrics.meanScore > best.meanScore!)) best = metrics;
  return best;
}
