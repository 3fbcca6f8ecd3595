// The one owner of the engines' current weight version: fed every version seen (by the proxy and the engine watcher),
// monotone (a late answer from an older version never moves it back; only reset() does, when slime starts again and
// counts from 0). The judging thread reads the same value from its shared cell. The rule is in staleness-policy.

export type VersionListener = (current: number, previous: number) => void;

/** Where the current weight version comes from: all the staleness rule needs. */
export interface WeightVersionSource {
  current(): number;
}

/** Where a version label seen on an engine's answer goes (the proxy sees one on every generation step). */
export interface WeightVersionObserver {
  /** Returns false for a label that is not slime's. */
  observe(version: string): boolean;
}

/** slime's weight versions are integer strings; "default" (before the first sync) counts as 0. */
export function parseWeightVersion(version: string): number | null {
  if (version === "default") return 0;
  if (!/^\d+$/.test(version)) return null;
  return Number(version);
}

/** The tracker's version read from another thread (the judging thread), through the cell the tracker shares. */
export function sharedWeightVersion(cell: SharedArrayBuffer): WeightVersionSource {
  const value = new BigInt64Array(cell);
  return { current: () => Number(Atomics.load(value, 0)) };
}

export class WeightVersionTracker implements WeightVersionSource, WeightVersionObserver {
  /** The version, in memory other threads can read (only this tracker writes it). */
  private readonly value = new BigInt64Array(new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT));
  /** Whether a slime version was ever observed (status shows none before). */
  private seen = false;
  private readonly listeners = new Set<VersionListener>();

  constructor(initial = 0) {
    this.set(initial);
  }

  /** The cell holding the version, for a reader on another thread (sharedWeightVersion). */
  get shared(): SharedArrayBuffer {
    return this.value.buffer as SharedArrayBuffer;
  }

  /** Feed every engine weight_version seen ("default" = 0). Returns false for a version that is not slime's. */
  observe(version: string): boolean {
    const parsed = parseWeightVersion(version);
    if (parsed === null) return false;
    this.seen = true;
    const previous = this.current();
    if (parsed > previous) {
      this.set(parsed);
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
    return Number(Atomics.load(this.value, 0));
  }

  /** The current version as status shows it; null until a slime version was observed. */
  label(): string | null {
    return this.seen ? String(this.current()) : null;
  }

  /**
   * Back to 0: slime started again, and its engines count versions from "default" (0) again. Observed versions are
   * never taken as that signal (during an update several engines answer with slightly older versions). Change
   * listeners are not called (the version went back); returns the version before the reset.
   */
  reset(): number {
    const previous = this.current();
    this.set(0);
    return previous;
  }

  private set(version: number): void {
    Atomics.store(this.value, 0, BigInt(version));
  }

  onChange(listener: VersionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
