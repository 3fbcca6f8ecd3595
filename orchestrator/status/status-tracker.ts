// The live status document (GET /status): the run's counts from the one fold of its events (run-tally.ts, which
// the dashboard reads too), with live counters from the proxy and the store laid over them when they are given.
import type { Recipe } from "../../contracts/recipe.ts";
import { STATUS_VERSION, type StatusSnapshot } from "../../contracts/status.ts";
import type { EventBus } from "../event-bus.ts";
import { versionLabels } from "../weights/version-labels.ts";
import { RunTally, type OutcomeRate, type TrainerCounts } from "./run-tally.ts";

export interface StatusProviders {
  /** The proxy's own counters (sessions it holds, main / side turns). */
  proxy?: () => { sessions: number; turns: { main: number; side: number } };
  /** The sample store's durable counts. */
  samples?: () => { ready: number; delivered: number; acknowledged: number; droppedStale: number };
  /** Whether traffic is accepted (the supervisor's gate), with the reason. */
  readiness?: () => { ready: boolean; reason: string };
  endpoints?: () => Partial<StatusSnapshot["endpoints"]>;
  /** The supervised engines in launch order (otherwise folded from engine-state events). */
  engines?: () => StatusSnapshot["engines"];
  /** The engines' current weight version (the staleness tracker's), null before any was seen. */
  weightVersion?: () => string | null;
}

export class StatusTracker {
  private readonly startedAt = Date.now();
  private readonly tally: RunTally;
  private readonly unsubscribe: () => void;

  constructor(bus: EventBus, private readonly recipe: Recipe, private readonly providers: StatusProviders = {}) {
    this.tally = new RunTally(recipe.training.batch_size);
    for (const event of bus.recent()) this.tally.apply(event);
    this.unsubscribe = bus.subscribe((event) => this.tally.apply(event));
  }

  snapshot(): StatusSnapshot {
    const counts = this.tally.counts();
    const proxy = this.providers.proxy?.();
    const store = this.providers.samples?.();
    const readiness = this.providers.readiness?.() ?? { ready: true, reason: "no engines supervised" };
    const endpoints = { proxy: null, admin: null, dashboard: null, bridge: null, ...this.providers.endpoints?.() };
    const { weights, samples, judging } = counts;
    return {
      version: STATUS_VERSION,
      ready: readiness.ready,
      reason: readiness.reason,
      name: this.recipe.name ?? null,
      method: this.recipe.method,
      engine: this.recipe.engine.kind,
      stand_in: this.recipe.engine.kind === "rehearsal",
      model: this.recipe.model.served_name,
      started_at: this.startedAt,
      uptime_s: Math.round((Date.now() - this.startedAt) / 1000),
      endpoints,
      weight_version: this.providers.weightVersion?.() ?? weights.version,
      weights_updating: weights.updating,
      version_labels: versionLabels(this.recipe),
      last_weights_update: weights.lastUpdate && { at: weights.lastUpdate.at, to_version: weights.lastUpdate.toVersion, duration_ms: weights.lastUpdate.durationMs },
      last_version_reset: weights.lastReset && { at: weights.lastReset.at, from_version: weights.lastReset.fromVersion, reason: weights.lastReset.reason },
      sessions: proxy?.sessions ?? counts.sessions,
      turns: proxy?.turns ?? counts.turns,
      samples: {
        ready: store?.ready ?? samples.ready,
        batch_size: samples.batchSize ?? this.recipe.training.batch_size,
        delivered: store?.delivered ?? samples.inTraining,
        acknowledged: store?.acknowledged ?? samples.trained,
        dropped_stale: store?.droppedStale ?? samples.droppedStale,
      },
      batches: counts.batches.trained,
      batches_delivered: counts.batches.delivered,
      last_batch_at: counts.batches.lastDeliveredAt,
      rewards: { count: counts.rewards.count, mean: counts.rewards.mean, positive: counts.rewards.positive, zero: counts.rewards.zero, negative: counts.rewards.negative },
      judging: { judged: judging.judged, without_sample: judging.withoutSample, skipped: judging.skipped, waiting: judging.waiting },
      episodes: {
        running: counts.episodes.running,
        finished: counts.episodes.finished,
        failed: counts.episodes.failed,
        outcome_rate: counts.episodes.rate,
        by_group: outcomeRates(counts.episodes.groups),
        by_version: outcomeRates(counts.episodes.versions),
      },
      trainer: trainerStatus(counts.trainer),
      checkpoints: counts.checkpoints.map((checkpoint, index) => ({ iteration: checkpoint.iteration, path: checkpoint.folder, bytes: checkpoint.bytes, saved_at: checkpoint.savedAt, latest: index === 0 })),
      engines: this.providers.engines?.() ?? counts.engines.map(({ name, state, detail }) => ({ name, state, detail })),
      errors: counts.errors.recent,
    };
  }

  close(): void {
    this.unsubscribe();
  }
}

function outcomeRates(table: Record<string, OutcomeRate>): StatusSnapshot["episodes"]["by_group"] {
  return Object.fromEntries(Object.entries(table).map(([key, { finished, failed, rate }]) => [key, { finished, failed, outcome_rate: rate }]));
}

function trainerStatus(trainer: TrainerCounts): StatusSnapshot["trainer"] {
  return {
    step: trainer.step,
    loss: trainer.loss,
    grad_norm: trainer.gradNorm,
    logprob_diff: trainer.logprobDiff,
    lr: trainer.lr,
    last_step_at: trainer.lastStepAt,
    last_progress_at: trainer.lastProgressAt,
    stalled: trainer.stalledSince !== null,
    stalled_since: trainer.stalledSince,
    entropy: trainer.entropy,
  };
}
