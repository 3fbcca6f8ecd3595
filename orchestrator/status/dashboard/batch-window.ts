// Per-batch stats: the window of the batch being filled (judged turns, +1/0/−1, hints, stale drops since the last
// delivery) and the bounded series of trained batches. A delivered batch is plotted once the trainer has
// acknowledged it (trained it): a batch handed to a trainer that died is never acknowledged, its samples come again
// in a new batch, and only that one is plotted. Knows nothing of turns' content or HTTP; the samples ready and the
// batch size are counts, the run tally's (run-tally.ts).
import type { RunEvent } from "../../../contracts/events.ts";
import { BoundedSeries } from "./bounded-series.ts";
import type { BatchPoint, OpenBatch } from "./dashboard-wire.ts";

/** Delivered batches remembered until their acknowledgement (a trainer holds one or two; the rest were given back). */
const IN_TRAINING_LIMIT = 64;

export class BatchWindow {
  /** Trained (acknowledged) batches, one point each, in the order they were acknowledged. */
  readonly trained: BoundedSeries<BatchPoint>;
  /** Delivered batches not acknowledged yet, by batch id, oldest first. */
  private readonly inTraining = new Map<string, BatchPoint>();
  private current: WindowCounts;

  constructor(limit: number) {
    this.trained = new BoundedSeries(limit);
    this.current = emptyWindow();
  }

  get open(): WindowCounts {
    return { ...this.current };
  }

  judged(event: Extract<RunEvent, { type: "turn-judged" }>): void {
    const open = this.current;
    open.judged += 1;
    if (event.score === 1) open.positive += 1;
    else if (event.score === -1) open.negative += 1;
    else if (event.score === 0) open.zero += 1;
    if (event.hintAccepted === true) open.hintsAccepted += 1;
    if (event.hintAccepted === false) open.hintsRejected += 1;
  }

  staleDrop(): void {
    this.current.staleDrops += 1;
  }

  /** Closes the window: the batch's own numbers plus the hint and drop counts of the window it closes (plotted once trained). */
  batchDelivered(event: Extract<RunEvent, { type: "batch-delivered" }>): void {
    const open = this.current;
    this.inTraining.set(event.batchId, {
      rolloutId: event.rolloutId, batchId: event.batchId, at: event.at, size: event.size, meanReward: event.meanReward,
      evalScore: event.evalScore, positive: event.counts.positive, zero: event.counts.zero, negative: event.counts.negative,
      hintsAccepted: open.hintsAccepted, hintsRejected: open.hintsRejected, staleDrops: open.staleDrops,
    });
    if (this.inTraining.size > IN_TRAINING_LIMIT) this.inTraining.delete(this.inTraining.keys().next().value!);
    this.current = emptyWindow();
  }

  /** The trainer trained this batch: it becomes a point (none for a delivery this window never saw). */
  batchAcknowledged(event: Extract<RunEvent, { type: "batch-acknowledged" }>): void {
    const point = this.inTraining.get(event.batchId);
    if (!point) return;
    this.inTraining.delete(event.batchId);
    this.trained.push(point);
  }

  /** The trainer restarted (a new bridge session): the batches it held went back to the store, to come again. */
  trainerRestarted(): void {
    this.inTraining.clear();
  }
}

/** The open batch's window: what OpenBatch holds besides the counts (samples ready, batch size). */
export type WindowCounts = Omit<OpenBatch, "ready" | "batchSize">;

function emptyWindow(): WindowCounts {
  return { judged: 0, positive: 0, zero: 0, negative: 0, hintsAccepted: 0, hintsRejected: 0, staleDrops: 0 };
}
