// Where every sample of a run is, folded from its events: made by this run's judging (sample-ready) or left in the
// store by an earlier run (store-opened), then ready, in training, trained or dropped, and the judged turns that made
// none. One sum holds after every event: made + fromEarlierRuns = ready + inTraining + trained + dropped.stale +
// dropped.invalid. Ignores rewards and batch counts (run-tally.ts, whose part this is).
import type { RunEvent, SkipCategory } from "../../contracts/events.ts";

export interface SampleCounts {
  /** Stored by this run's judging (sample-ready): the judged turns with a sample. */
  made: number;
  /** Left in the records folder's store by earlier runs when this run opened it (ready, or out to a trainer). */
  fromEarlierRuns: number;
  /** Toward the next batch: stored, not handed out. */
  ready: number;
  /** Handed to the trainer and not acknowledged yet. */
  inTraining: number;
  /** Acknowledged: slime trained them. */
  trained: number;
  /** Dropped untrained, by reason (stale: too many weight versions behind). */
  dropped: { stale: number; invalid: number };
  /** Every sample handed to the trainer, re-deliveries included: a count of hand-outs, not a part of the sum. */
  delivered: number;
  batchSize: number | null;
  /**
   * A full batch's worth waits, held back by the per-session share (batch-held): since when, the sessions with a sample
   * ready and the most one may hold, those over it, when the held-back samples complete a batch; null once a batch left.
   */
  held: { since: number; activeSessions: number | null; perSession: number | null; sessions: Array<{ unit: string; ready: number }>; completesAt: number | null } | null;
}

/** The judged turns that made no sample, and those of them by category. */
export interface UnsampledCounts {
  withoutSample: number;
  skipped: Partial<Record<SkipCategory, number>>;
}

export interface SampleTallyLimits {
  /** Delivered batches remembered until acknowledged (past it the oldest id is forgotten, its samples still counted in training). */
  inTraining: number;
  /** Judged turns without a sample remembered, so that one judged again (feedback) counts once. */
  unsampled: number;
}

export class SampleTally {
  private readonly samples: Omit<SampleCounts, "batchSize"> = { made: 0, fromEarlierRuns: 0, ready: 0, inTraining: 0, trained: 0, dropped: { stale: 0, invalid: 0 }, delivered: 0, held: null };
  private readonly judging: UnsampledCounts = { withoutSample: 0, skipped: {} };
  /** Judged turns without a sample, `session\u0000turn` → category, oldest first. */
  private readonly unsampled = new Map<string, SkipCategory | null>();
  /** Sizes of delivered batches not acknowledged yet, by batch id, oldest first. */
  private readonly inTraining = new Map<string, number>();

  constructor(private readonly limits: SampleTallyLimits) {}

  apply(event: RunEvent): void {
    switch (event.type) {
      case "turn-judged":
        // a turn with a sample was counted when its sample was stored (sample-ready comes first)
        if (!event.sample) this.noteUnsampled(`${event.sessionId}\u0000${event.turn}`, event.skipCategory ?? null);
        return;
      case "sample-ready":
        this.noteUnsampled(`${event.sessionId}\u0000${event.turn}`, undefined); // (judged again after feedback: it ended with a sample)
        this.samples.made += 1;
        this.samples.ready += 1;
        return;
      case "sample-dropped":
        this.samples.dropped[event.reason] += 1; // (the store drops ready samples only)
        this.samples.ready -= 1;
        return;
      case "batch-delivered":
        this.samples.held = null;
        this.samples.delivered += event.size;
        this.intoTraining(event.batchId, event.size); // (the same batch handed out again: still one batch out)
        return;
      case "batch-held":
        this.samples.held = {
          since: this.samples.held?.since ?? event.at,
          activeSessions: event.activeSessions ?? null,
          perSession: event.perSession ?? null,
          sessions: event.sessions ?? this.samples.held?.sessions ?? [],
          completesAt: event.completesAt ?? this.samples.held?.completesAt ?? null,
        };
        return;
      case "batch-released":
        this.samples.ready += this.outOfTraining(event.batchId);
        return;
      case "batch-acknowledged":
        // trained: only an acknowledged batch counts (one handed to a trainer that died comes again, as a new batch)
        this.samples.trained += this.outOfTraining(event.batchId);
        return;
      case "store-opened":
        this.samples.fromEarlierRuns += event.ready + event.outstanding.reduce((sum, batch) => sum + batch.size, 0);
        this.samples.ready += event.ready;
        for (const batch of event.outstanding) this.intoTraining(batch.batchId, batch.size, false);
        return;
    }
  }

  counts(batchSize: number | null): SampleCounts {
    return { ...this.samples, dropped: { ...this.samples.dropped }, held: this.samples.held && { ...this.samples.held, sessions: this.samples.held.sessions.map((unit) => ({ ...unit })) }, batchSize };
  }

  unsampledCounts(): UnsampledCounts {
    return { withoutSample: this.judging.withoutSample, skipped: { ...this.judging.skipped } };
  }

  /** A judged turn without a sample (`category`), or, `undefined`, one that ended with a sample after all: counted once, as it ended. */
  private noteUnsampled(key: string, category: SkipCategory | null | undefined): void {
    const before = this.unsampled.get(key);
    if (before !== undefined) {
      this.unsampled.delete(key);
      this.count(before, -1);
    }
    if (category === undefined) return;
    this.unsampled.set(key, category);
    if (this.unsampled.size > this.limits.unsampled) this.unsampled.delete(this.unsampled.keys().next().value!); // (forgotten: only its count stays)
    this.count(category, 1);
  }

  private count(category: SkipCategory | null, change: 1 | -1): void {
    this.judging.withoutSample += change;
    if (category === null) return;
    const count = (this.judging.skipped[category] ?? 0) + change;
    if (count > 0) this.judging.skipped[category] = count;
    else delete this.judging.skipped[category];
  }

  /** A batch out to the trainer: its samples leave ready (`fromReady`; not those an earlier run handed out), once however often it is handed out. */
  private intoTraining(batchId: string, size: number, fromReady = true): void {
    if (!this.inTraining.has(batchId)) {
      this.samples.inTraining += size;
      if (fromReady) this.samples.ready -= size;
    }
    this.inTraining.set(batchId, size);
    if (this.inTraining.size > this.limits.inTraining) this.inTraining.delete(this.inTraining.keys().next().value!);
  }

  /** No longer out (acknowledged, or given back): its size, taken off the in-training count (0 for one not known). */
  private outOfTraining(batchId: string): number {
    const size = this.inTraining.get(batchId) ?? 0;
    this.inTraining.delete(batchId);
    this.samples.inTraining -= size;
    return size;
  }
}
