// How soon it learns: folds batch hand-outs, acknowledgements and weight updates into each trained sample's five waits
// (answer → closed → judged → handed to the trainer → trained → served in the weights), median and p90 over the last N.
// Ignores samples without recorded moments (stored by an older version), samples judged before this run opened the
// store (an earlier run's, handed out now) and batches handed out before this run.
import type { RunEvent } from "../../contracts/events.ts";
import type { SampleStages } from "../../contracts/sample.ts";
import { LEARNING_LATENCY_STAGES } from "../../contracts/status.ts";

export type LatencyStage = (typeof LEARNING_LATENCY_STAGES)[number];

/** One trained sample's waits in ms: each stage from the one before it (closed: from the answer), and the whole (total). */
export type SampleLatency = Record<LatencyStage, number>;

export interface Spread {
  median: number;
  p90: number;
}

export interface LearningLatencyCounts {
  /** Samples the spreads are over (the last `window` served). */
  samples: number;
  window: number;
  /** Per stage (from the stage before) and the whole (from the answer); null before any sample was served. */
  stages: Record<LatencyStage, Spread | null>;
  /** Trained samples whose weights are not served yet. */
  awaitingServe: number;
  /** When the engines last finished a weight update. */
  lastServedUpdateAt: number | null;
}

interface OutBatch {
  deliveredAt: number;
  stages: SampleStages[];
  /** Weight updates finished before it was handed out. */
  updatesBefore: number;
}

interface TrainedBatch extends OutBatch {
  trainedAt: number;
}

/**
 * A batch is trained when the trainer acknowledges it. Its weights are served at the first weight update that ends
 * after the acknowledgement, or at the acknowledgement itself when an update ended since the hand-out: slime's
 * rollout function acknowledges a batch only once the step that trained it and the update after it are done
 * (native/openclaw_rl/rollout.py, _acknowledge_trained), so both moments are upper bounds there.
 */
export class LearningLatency {
  private readonly out = new Map<string, OutBatch>();
  private awaiting: TrainedBatch[] = [];
  private recent: SampleLatency[] = [];
  private updates = 0;
  private lastUpdateAt: number | null = null;
  /** When this run opened the sample store: samples judged before it are an earlier run's and count nothing. */
  private storeOpenedAt = -Infinity;

  constructor(readonly window = 200, private readonly maxBatches = 1000) {}

  apply(event: RunEvent): void {
    switch (event.type) {
      case "store-opened":
        this.storeOpenedAt = event.at;
        return;
      case "batch-delivered": {
        // a batch handed out again keeps its first hand-out's moment
        const stages = (event.stages ?? []).filter((sample) => sample.judgedAt >= this.storeOpenedAt);
        if (!this.out.has(event.batchId)) this.out.set(event.batchId, { deliveredAt: event.at, stages, updatesBefore: this.updates });
        if (this.out.size > this.maxBatches) this.out.delete(this.out.keys().next().value!);
        return;
      }
      case "batch-released":
        this.out.delete(event.batchId);
        return;
      case "batch-acknowledged": {
        const batch = this.out.get(event.batchId);
        this.out.delete(event.batchId);
        if (!batch) return;
        const trained = { ...batch, trainedAt: event.at };
        if (this.updates > batch.updatesBefore) this.served(trained, event.at);
        else this.awaiting = [...this.awaiting, trained].slice(-this.maxBatches);
        return;
      }
      case "weights-update-end": {
        this.updates += 1;
        this.lastUpdateAt = event.at;
        const awaiting = this.awaiting;
        this.awaiting = [];
        for (const batch of awaiting) this.served(batch, event.at);
        return;
      }
    }
  }

  counts(): LearningLatencyCounts {
    const stages = Object.fromEntries(LEARNING_LATENCY_STAGES.map((stage) => [stage, spread(this.recent.map((sample) => sample[stage]))])) as LearningLatencyCounts["stages"];
    return {
      samples: this.recent.length,
      window: this.window,
      stages,
      awaitingServe: this.awaiting.reduce((sum, batch) => sum + batch.stages.length, 0),
      lastServedUpdateAt: this.lastUpdateAt,
    };
  }

  private served(batch: TrainedBatch, servedAt: number): void {
    const added = batch.stages.map((stages) => sampleLatency(stages, batch.deliveredAt, batch.trainedAt, servedAt));
    this.recent = [...this.recent, ...added].slice(-this.window);
  }
}

export function sampleLatency(stages: SampleStages, handedAt: number, trainedAt: number, servedAt: number): SampleLatency {
  return {
    closed: stages.closedAt - stages.answeredAt,
    judged: stages.judgedAt - stages.closedAt,
    handed: handedAt - stages.judgedAt,
    trained: trainedAt - handedAt,
    served: servedAt - trainedAt,
    total: servedAt - stages.answeredAt,
  };
}

/** Median and 90th percentile (nearest rank); null for none. */
export function spread(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((left, right) => left - right);
  const rank = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(quantile * sorted.length) - 1))]!;
  return { median: rank(0.5), p90: rank(0.9) };
}
