// The stand-in engine's mutable state shared by its HTTP routes: pause mode and its waiters, in-flight
// generations, the weight version and a small prefix cache (for cached_tokens). No HTTP, no tokenizer.
import type { StandinGeneration } from "./generation.ts";

export type PauseMode = "abort" | "retract" | "in_place";

export class StandinEngineState {
  pauseMode: PauseMode | null = null;
  weightVersion: string;
  tokenDelayMs: number;
  readonly inFlight = new Set<StandinGeneration>();
  /** Counters a test or `status` may read. */
  readonly counters = { requests: 0, aborted: 0, finished: 0, weightUpdates: 0, forwards: 0 };
  private waiters: Array<() => void> = [];
  private readonly prefixes: number[][] = [];

  constructor(options: { weightVersion: string; tokenDelayMs: number; prefixCacheEntries?: number }) {
    this.weightVersion = options.weightVersion;
    this.tokenDelayMs = options.tokenDelayMs;
    this.prefixCapacity = options.prefixCacheEntries ?? 64;
  }

  private readonly prefixCapacity: number;

  get paused(): boolean {
    return this.pauseMode !== null;
  }

  /** New requests wait here while the engine is paused (SGLang's is_pause_cond). */
  whenUnpaused(): Promise<void> {
    if (this.pauseMode === null) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Running generations hold here only for in_place / retract pauses; abort mode aborts them instead. */
  whenRunning(): Promise<void> {
    return this.pauseMode === null || this.pauseMode === "abort" ? Promise.resolve() : this.whenUnpaused();
  }

  pause(mode: PauseMode): number {
    this.pauseMode = mode;
    return mode === "abort" ? this.abortAll() : 0;
  }

  resume(): void {
    this.pauseMode = null;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  abortAll(): number {
    let count = 0;
    for (const generation of this.inFlight) {
      if (generation.finishReason === null && !generation.aborted) {
        generation.requestAbort();
        count += 1;
      }
    }
    return count;
  }

  abort(rid: string): number {
    let count = 0;
    for (const generation of this.inFlight) {
      if (generation.rid === rid && generation.finishReason === null) {
        generation.requestAbort();
        count += 1;
      }
    }
    return count;
  }

  /** Longest prefix of `ids` seen in a recent request (capped so at least one token is computed). */
  cachedTokens(ids: readonly number[]): number {
    let best = 0;
    for (const prefix of this.prefixes) {
      const limit = Math.min(prefix.length, ids.length - 1);
      let match = 0;
      while (match < limit && prefix[match] === ids[match]) match += 1;
      best = Math.max(best, match);
    }
    return best;
  }

  remember(ids: readonly number[]): void {
    this.prefixes.push([...ids]);
    if (this.prefixes.length > this.prefixCapacity) this.prefixes.shift();
  }

  flushCache(): void {
    this.prefixes.length = 0;
  }
}
