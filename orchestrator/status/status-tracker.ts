// The live status document (GET /status): every count, state and version from the run's one fold of its events
// (run-tally.ts; start hands the dashboard the same instance), plus what is no count (readiness, endpoints).
import type { Recipe } from "../../contracts/recipe.ts";
import { STATUS_VERSION, type StatusSnapshot } from "../../contracts/status.ts";
import type { EventBus } from "../event-bus.ts";
import { sessionCap } from "../store/batch-composition.ts";
import { versionLabels } from "../weights/version-labels.ts";
import type { LearningLatencyCounts } from "./learning-latency.ts";
import { progressOf } from "./run-progress.ts";
import { RunTally, type OutcomeRate, type RunCounts, type TrainerCounts } from "./run-tally.ts";
import { followBus } from "./tally-feed.ts";

export interface StatusProviders {
  /** Whether traffic is accepted (the supervisor's gate), with the reason. */
  readiness?: () => { ready: boolean; reason: string };
  endpoints?: () => Partial<StatusSnapshot["endpoints"]>;
}

export class StatusTracker {
  private readonly tally: RunTally;
  private readonly unsubscribe: () => void;

  /** `tally`: the run's one fold, fed by its owner (start shares it with the dashboard); without it, one of its own fed from the bus. */
  constructor(bus: EventBus, private readonly recipe: Recipe, private readonly providers: StatusProviders = {}, tally?: RunTally) {
    if (tally) {
      this.tally = tally;
      this.unsubscribe = () => undefined;
    } else {
      this.tally = new RunTally(recipe.training.batch_size);
      this.unsubscribe = followBus(bus, this.tally);
    }
  }

  snapshot(now = Date.now()): StatusSnapshot {
    const counts = this.tally.counts();
    const readiness = this.providers.readiness?.() ?? { ready: true, reason: "no engines supervised" };
    const endpoints = { proxy: null, admin: null, dashboard: null, bridge: null, ...this.providers.endpoints?.() };
    const { weights, samples, judging } = counts;
    return {
      version: STATUS_VERSION,
      run_id: counts.run.runId,
      ready: readiness.ready,
      reason: readiness.reason,
      name: this.recipe.name ?? null,
      method: this.recipe.method,
      engine: this.recipe.engine.kind,
      stand_in: this.recipe.engine.kind === "rehearsal",
      model: this.recipe.model.served_name,
      started_at: counts.run.startedAt,
      uptime_s: Math.round((now - counts.run.startedAt) / 1000),
      endpoints,
      weight_version: weights.version,
      weights_updating: weights.updating,
      version_labels: versionLabels(this.recipe),
      last_weights_update: weights.lastUpdate && { at: weights.lastUpdate.at, to_version: weights.lastUpdate.toVersion, duration_ms: weights.lastUpdate.durationMs },
      starting_weights: this.recipe.derived.startingWeights,
      last_version_reset: weights.lastReset && { at: weights.lastReset.at, from_version: weights.lastReset.fromVersion, reason: weights.lastReset.reason },
      sessions: counts.sessions,
      turns: counts.turns,
      evaluation: {
        configured: this.recipe.evaluation.every_versions > 0,
        every_versions: this.recipe.evaluation.every_versions,
        stop_if_worse: this.recipe.evaluation.stop_if_worse,
        base_version: counts.evaluation.baseVersion,
        best: bestStatus(counts.evaluation.best),
        versions: counts.evaluation.points.map((point) => ({
          at: point.at,
          version: point.version,
          version_at_end: point.versionAtEnd,
          mean_score: point.meanScore,
          score_ci: point.scoreCi,
          win_rate: point.winRate,
          win_rate_ci: point.winRateCi,
          outcome_rate: point.outcomeRate,
          outcome_ci: point.outcomeCi,
          requests: point.requests,
          run: point.run,
          base: point.base,
        })),
      },
      training: { paused: counts.trainingPause !== null, since: counts.trainingPause?.since ?? null, message: counts.trainingPause?.message ?? null, resume: counts.trainingPause?.resume ?? null },
      clients: counts.clients.map((entry) => ({ client: entry.client, main_turns: entry.mainTurns, asked_otherwise: entry.askedOtherwise, off_policy: entry.offPolicy, asked: entry.asked })),
      samples: {
        made: samples.made,
        from_earlier_runs: samples.fromEarlierRuns,
        ready: samples.ready,
        in_training: samples.inTraining,
        trained: samples.trained,
        dropped: { ...samples.dropped },
        delivered: samples.delivered,
        batch_size: samples.batchSize ?? this.recipe.training.batch_size,
        held_back: samples.held && heldBack(this.recipe, samples.batchSize ?? this.recipe.training.batch_size, samples.held),
      },
      records_folder: counts.folder && { samples_trained: counts.folder.samplesTrained, dropped_stale: counts.folder.droppedStale },
      progress: progressStatus(counts, now),
      batches: counts.batches.trained,
      batches_delivered: counts.batches.delivered,
      last_batch_at: counts.batches.lastDeliveredAt,
      rewards: { count: counts.rewards.count, mean: counts.rewards.mean, positive: counts.rewards.positive, zero: counts.rewards.zero, negative: counts.rewards.negative },
      judging: { judged: judging.judged, without_sample: judging.withoutSample, skipped: judging.skipped, waiting: judging.waiting, open: judging.open },
      episodes: {
        running: counts.episodes.running,
        finished: counts.episodes.finished,
        failed: counts.episodes.failed,
        outcome_rate: counts.episodes.rate,
        by_group: outcomeRates(counts.episodes.groups),
        by_version: outcomeRates(counts.episodes.versions),
        planned: counts.episodes.planned,
      },
      trainer: trainerStatus(counts.trainer),
      hybrid: hybridStatus(counts.hybrid),
      checkpoints: counts.checkpoints.map((checkpoint, index) => ({ iteration: checkpoint.iteration, path: checkpoint.folder, bytes: checkpoint.bytes, saved_at: checkpoint.savedAt, latest: index === 0 })),
      learning_latency: learningLatencyStatus(counts.learningLatency),
      engines: counts.engines.map(({ name, state, detail }) => ({ name, state, detail })),
      errors: counts.errors.recent,
    };
  }

  close(): void {
    this.unsubscribe();
  }
}

function bestStatus(best: RunCounts["evaluation"]["best"]): StatusSnapshot["evaluation"]["best"] {
  return best && best.meanScore !== null ? { version: best.version, mean_score: best.meanScore, score_ci: best.scoreCi } : null;
}

/** The per-session share a held-back batch waits on (training.fair_batch), for a batch of `size`, as the store said it (its active sessions). */
function heldBack(recipe: Recipe, size: number, held: NonNullable<RunCounts["samples"]["held"]>): NonNullable<StatusSnapshot["samples"]["held_back"]> {
  const { max_session_share, relax_after_s } = recipe.training.fair_batch;
  const per_session = held.perSession ?? sessionCap(size, max_session_share, held.activeSessions ?? undefined);
  const sessions = held.sessions.map(({ unit, ready }) => ({ session: unit, ready }));
  return { since: held.since, active_sessions: held.activeSessions, per_session, max_session_share, relax_after_s, sessions, completes_at: held.completesAt };
}

function progressStatus(counts: RunCounts, now: number): StatusSnapshot["progress"] {
  const progress = progressOf(counts, now);
  return {
    episodes_done: progress.episodes?.done ?? null,
    episodes_planned: progress.episodes?.planned ?? null,
    weight_version: progress.weightVersion,
    batches_trained: progress.batchesTrained,
    finished: progress.finished,
    eta_ms: progress.etaMs,
  };
}

function outcomeRates(table: Record<string, OutcomeRate>): StatusSnapshot["episodes"]["by_group"] {
  return Object.fromEntries(Object.entries(table).map(([key, { finished, failed, rate }]) => [key, { finished, failed, outcome_rate: rate }]));
}

function hybridStatus(hybrid: RunCounts["hybrid"]): StatusSnapshot["hybrid"] {
  if (!hybrid) return null;
  const trainer = hybrid.trainer;
  return {
    cases: hybrid.cases,
    samples: hybrid.samples,
    candidates_per_turn: hybrid.samples > 0 ? hybrid.candidates / hybrid.samples : null,
    k_star: trainer?.kStar ?? null,
    overlap_at_k_star: trainer?.overlapAtKStar ?? null,
    subset_size: trainer?.subsetSize ?? null,
  };
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

function learningLatencyStatus(latency: LearningLatencyCounts): StatusSnapshot["learning_latency"] {
  return { samples: latency.samples, window: latency.window, stages: latency.stages, awaiting_serve: latency.awaitingServe, last_served_update_at: latency.lastServedUpdateAt };
}

