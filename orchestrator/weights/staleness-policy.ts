// The one staleness rule: tokens are stale when the oldest one's weight version is more than max_staleness versions
// behind the current one, asked of a version source; and the window of samples that rule leaves to wait in line. Used
// by the store, the judging thread, the batch frame and the rollout budget; knows nothing of where versions come from.
import { parseWeightVersion, type WeightVersionSource } from "./weight-version-tracker.ts";

/** The oldest version among the labels; null when none is a known version. */
export function oldestVersion(weightVersions: readonly string[]): number | null {
  let oldest: number | null = null;
  for (const version of weightVersions) {
    const value = parseWeightVersion(version);
    if (value !== null && (oldest === null || value < oldest)) oldest = value;
  }
  return oldest;
}

export class StalenessPolicy {
  constructor(
    private readonly versions: WeightVersionSource,
    readonly maxStaleness: number,
  ) {}

  /** The current weight version, as the source has it now. */
  current(): number {
    return this.versions.current();
  }

  // Each question takes the current version to compare with; a caller that asks about many samples in one pass
  // reads current() once and passes it, so they are all judged against the same version.

  /** How many versions behind `current` the oldest of these tokens is (0 when none has a known version). */
  stalenessOf(weightVersions: readonly string[], current = this.current()): number {
    const oldest = oldestVersion(weightVersions);
    return oldest === null ? 0 : Math.max(0, current - oldest);
  }

  /** Tokens with no known version are never stale (nothing to compare). */
  isStale(weightVersions: readonly string[], current = this.current()): boolean {
    return this.stalenessOf(weightVersions, current) > this.maxStaleness;
  }

  /** Tokens trained now or never: the next weight version makes them stale (the store's batches take them first). */
  isLastChance(weightVersions: readonly string[], current = this.current()): boolean {
    return this.stalenessOf(weightVersions, current) >= this.maxStaleness;
  }

  /**
   * How many samples may wait in line and still be trained fresh: batches of `batchSize` take one weight version each
   * and the batch in training when a sample is made brings one version more, so a sample is trained before this rule
   * drops it while at most max_staleness × batch_size samples are ahead of it, itself included.
   */
  window(batchSize: number): number {
    return this.maxStaleness * batchSize;
  }

  /** Why these tokens are stale, in the words the store's and the judge's records use; null when they are not. */
  staleReason(weightVersions: readonly string[], current = this.current()): string | null {
    if (!this.isStale(weightVersions, current)) return null;
    return `oldest token from weight version ${oldestVersion(weightVersions)}, current ${current}, max_staleness ${this.maxStaleness}`;
  }
}
