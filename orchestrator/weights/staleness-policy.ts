// The one staleness rule: a sample is stale when its oldest token's weight version is more than
// max_staleness versions behind the current one. Knows nothing of where versions come from.
import type { Sample } from "../../contracts/sample.ts";

/** slime's weight versions are integer strings; "default" (before the first sync) counts as 0. */
export function parseWeightVersion(version: string): number | null {
  if (version === "default") return 0;
  if (!/^\d+$/.test(version)) return null;
  return Number(version);
}

/** The oldest version among the sample's tokens; null when none is a known version. */
export function oldestVersion(weightVersions: readonly string[]): number | null {
  let oldest: number | null = null;
  for (const version of weightVersions) {
    const value = parseWeightVersion(version);
    if (value !== null && (oldest === null || value < oldest)) oldest = value;
  }
  return oldest;
}

/** How many versions behind `current` the sample's oldest token is (0 when unknown). */
export function stalenessOf(sample: Pick<Sample, "weightVersions">, current: number): number {
  const oldest = oldestVersion(sample.weightVersions);
  return oldest === null ? 0 : Math.max(0, current - oldest);
}

/** Samples with no known version are never stale (nothing to compare). */
export function isStale(sample: Pick<Sample, "weightVersions">, current: number, maxStaleness: number): boolean {
  return stalenessOf(sample, current) > maxStaleness;
}
