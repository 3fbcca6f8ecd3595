// Tracks the engines' current weight version from every version the proxy observes (monotone: a late
// answer from an older version never moves it back; only reset() does, when slime starts again and counts from 0).
// Knows nothing of samples; the rule is in staleness-policy.
import { parseWeightVersion } from "./staleness-policy.ts";

export { isStale, oldestVersion, parseWeightVersion, stalenessOf } from "./staleness-policy.ts";

export type VersionListener = (current: number, previous: number) => void;

export interface WeightVersionSource {
  current(): number;
}

export class WeightVersionTracker implements WeightVersionSource {
  private value: number;
  private readonly listeners = new Set<VersionListener>();

  constructor(initial = 0) {
    this.value = initial;
  }

  /** Feed every engine weight_version seen ("default" = 0). Returns false for a version that is not slime's. */
  observe(version: string): boolean {
    const parsed = parseWeightVersion(version);
    if (parsed === null) return false;
    if (parsed > this.value) {
      const previous = this.value;
      this.value = parsed;
      for (const listener of this.listeners) {
        try {
          listener(parsed, previous);
        } catch {
          // a failing listener must not break the proxy's hot path
        }
      }
    }
    return true;
  }

  current(): number {
    return this.value;
  }

  /**
   * Back to 0: slime started again, and its engines count versions from "default" (0) again. Observed versions are
   * never taken as that signal (during an update several engines answer with slightly older versions). Change
   * listeners are not called (the version went back); returns the version before the reset.
   */
  reset(): number {
    const previous = this.value;
    this.value = 0;
    return previous;
  }

  onChange(listener: VersionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
