// Folds the run's events into the live status (turns, samples toward the next batch, rewards, weight
// version, engines, recent errors); live counters from the proxy and the store win when they are given.
import type { EngineState, RunEvent } from "../../contracts/events.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { EventBus } from "../event-bus.ts";
import { STATUS_VERSION, type StatusSnapshot } from "../../contracts/status.ts";
import { versionLabels } from "../weights/version-labels.ts";

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

const ERROR_HISTORY = 20;
/** Delivered batches remembered until acknowledged (a trainer holds one or two; the others were given back). */
const IN_TRAINING_LIMIT = 1000;
/** Most closed-and-not-yet-judged turns remembered (past it the oldest are forgotten: a judge that stopped). */
const WAITING_LIMIT = 100_000;

export class StatusTracker {
  private readonly startedAt = Date.now();
  private readonly sessions = new Set<string>();
  private readonly turns = { main: 0, side: 0 };
  private readonly samples = { ready: 0, delivered: 0, acknowledged: 0, droppedStale: 0, batchSize: 0 };
  /** Sizes of delivered batches not acknowledged yet, by batch id, oldest first. */
  private readonly batchSizes = new Map<string, number>();
  private readonly rewards = { count: 0, sum: 0, positive: 0, zero: 0, negative: 0 };
  private readonly engines = new Map<string, { state: EngineState; detail: string }>();
  private readonly judging = { judged: 0, withoutSample: 0, skipped: {} as Record<string, number> };
  /** Closed main turns not judged yet, `session\u0000turn`, oldest first. */
  private readonly waiting = new Set<string>();
  private errors: StatusSnapshot["errors"] = [];
  /** Batches trained (acknowledged), and every delivery (re-deliveries of a batch a dead trainer held included). */
  private batchesTrained = 0;
  private batchesDelivered = 0;
  private lastBatchAt: number | null = null;
  private weightVersion: string | null = null;
  private weightsUpdating = false;
  private lastWeightsUpdate: StatusSnapshot["last_weights_update"] = null;
  private lastVersionReset: StatusSnapshot["last_version_reset"] = null;
  private readonly unsubscribe: () => void;

  constructor(bus: EventBus, private readonly recipe: Recipe, private readonly providers: StatusProviders = {}) {
    this.samples.batchSize = recipe.training.batch_size;
    for (const event of bus.recent()) this.apply(event);
    this.unsubscribe = bus.subscribe((event) => this.apply(event));
  }

  apply(event: RunEvent): void {
    switch (event.type) {
      case "turn-start":
        this.sessions.add(event.sessionId);
        this.turns[event.turnType] += 1;
        break;
      case "sample-ready":
        this.samples.ready = event.ready;
        this.samples.batchSize = event.batchSize;
        this.rewards.count += 1;
        this.rewards.sum += event.reward;
        if (event.reward > 0) this.rewards.positive += 1;
        else if (event.reward < 0) this.rewards.negative += 1;
        else this.rewards.zero += 1;
        break;
      case "turn-closed":
        this.waiting.add(`${event.sessionId}\u0000${event.turn}`);
        if (this.waiting.size > WAITING_LIMIT) this.waiting.delete(this.waiting.values().next().value!);
        break;
      case "turn-judged":
        this.waiting.delete(`${event.sessionId}\u0000${event.turn}`);
        this.judging.judged += 1;
        if (event.sample === null) {
          this.judging.withoutSample += 1;
          if (event.skipCategory) this.judging.skipped[event.skipCategory] = (this.judging.skipped[event.skipCategory] ?? 0) + 1;
        }
        break;
      case "sample-dropped":
        if (event.reason === "stale") this.samples.droppedStale += 1;
        break;
      case "batch-delivered":
        this.batchesDelivered += 1;
        this.lastBatchAt = event.at;
        this.samples.delivered += event.size;
        this.samples.ready = Math.max(0, this.samples.ready - event.size);
        this.batchSizes.set(event.batchId, event.size);
        if (this.batchSizes.size > IN_TRAINING_LIMIT) this.forgetBatch(this.batchSizes.keys().next().value!);
        break;
      case "batch-acknowledged":
        // trained: only an acknowledged batch counts (one handed to a trainer that died comes again, as a new batch)
        this.batchesTrained += 1;
        this.samples.acknowledged += this.forgetBatch(event.batchId);
        break;
      case "weights-update-start":
        this.weightsUpdating = true;
        break;
      case "weights-update-end":
        this.weightsUpdating = false;
        this.weightVersion = event.toVersion;
        this.lastWeightsUpdate = { at: event.at, to_version: event.toVersion, duration_ms: event.durationMs };
        break;
      case "weights-version-reset":
        // slime restarted: its engines count from 0 ("default") again, the old version is served no more
        this.weightsUpdating = false;
        this.weightVersion = "0";
        this.lastVersionReset = { at: event.at, from_version: event.fromVersion, reason: event.reason };
        // the new trainer's hello gave the batches the old one held back to the store: none is out any more
        for (const batchId of [...this.batchSizes.keys()]) this.forgetBatch(batchId);
        break;
      case "engine-state":
        this.engines.set(event.name, { state: event.state, detail: event.detail });
        break;
      case "error":
        this.errors = [...this.errors, { at: event.at, source: event.source, code: event.code, message: event.message }].slice(-ERROR_HISTORY);
        break;
      default:
        break;
    }
  }

  snapshot(): StatusSnapshot {
    const proxy = this.providers.proxy?.();
    const store = this.providers.samples?.();
    const readiness = this.providers.readiness?.() ?? { ready: true, reason: "no engines supervised" };
    const endpoints = { proxy: null, admin: null, dashboard: null, bridge: null, ...this.providers.endpoints?.() };
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
      weight_version: this.providers.weightVersion?.() ?? this.weightVersion,
      weights_updating: this.weightsUpdating,
      version_labels: versionLabels(this.recipe),
      last_weights_update: this.lastWeightsUpdate,
      last_version_reset: this.lastVersionReset,
      sessions: proxy?.sessions ?? this.sessions.size,
      turns: proxy?.turns ?? { ...this.turns },
      samples: {
        ready: store?.ready ?? this.samples.ready,
        batch_size: this.samples.batchSize,
        delivered: store?.delivered ?? this.samples.delivered,
        acknowledged: store?.acknowledged ?? this.samples.acknowledged,
        dropped_stale: store?.droppedStale ?? this.samples.droppedStale,
      },
      batches: this.batchesTrained,
      batches_delivered: this.batchesDelivered,
      last_batch_at: this.lastBatchAt,
      rewards: {
        count: this.rewards.count,
        mean: this.rewards.count > 0 ? this.rewards.sum / this.rewards.count : null,
        positive: this.rewards.positive,
        zero: this.rewards.zero,
        negative: this.rewards.negative,
      },
      judging: { judged: this.judging.judged, without_sample: this.judging.withoutSample, skipped: { ...this.judging.skipped }, waiting: this.waiting.size },
      engines: this.providers.engines?.() ?? [...this.engines].map(([name, engine]) => ({ name, ...engine })),
      errors: this.errors,
    };
  }

  close(): void {
    this.unsubscribe();
  }

  /** No longer out (acknowledged, or given back): its size, taken off the delivered count. */
  private forgetBatch(batchId: string): number {
    const size = this.batchSizes.get(batchId) ?? 0;
    this.batchSizes.delete(batchId);
    this.samples.delivered = Math.max(0, this.samples.delivered - size);
    return size;
  }
}
