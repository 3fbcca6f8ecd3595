// The one fold of a run's events into counts, states and versions (turns, sessions, judging, samples and where each
// one is, batches delivered and trained, rewards, the weight version, engines, errors, episodes and their plan):
// status and the dashboard read one instance of it (run.ts shares it). Counters are this run's; the records folder's
// totals since it was created are apart (`folder`). Ignores series over time (the dashboard's own).
// About 400 lines on purpose: one reducer, whose event cases are read together to see that every screen's figure has
// one source; its separable parts live beside it (sample-tally, client-sampling-tally, run-progress, trainer-watchdog).
import type { EngineState, PolicyEntropy, RunEvent, SkipCategory } from "../../contracts/events.ts";
import { parseWeightVersion } from "../weights/weight-version-tracker.ts";
import { ClientSamplingTally, type ClientSampling } from "./client-sampling-tally.ts";
import { SampleTally, type SampleCounts } from "./sample-tally.ts";
import { EvaluationTally, type EvaluationCounts } from "./evaluation-tally.ts";
import { HybridTally, type HybridCounts } from "./hybrid-tally.ts";
import { LearningLatency, type LearningLatencyCounts } from "./learning-latency.ts";
import { isTrainerProgress, TRAINER_STALLED } from "./trainer-watchdog.ts";

export interface RunTallyLimits {
  /** Distinct session ids counted exactly; beyond this the count stops growing. */
  sessions: number;
  /** Delivered batches remembered until acknowledged (a trainer holds one or two; the others were given back). */
  inTraining: number;
  /** Closed-and-not-yet-judged turns remembered (past it the oldest are forgotten: a judge that stopped); also the judged turns without a sample remembered, so that one judged again (feedback) counts once. */
  waiting: number;
  /** Recent errors kept with their text (all of them are counted). */
  recentErrors: number;
  /** Episode task groups and weight versions kept with their outcome rates (the most recently seen; the first version is always kept). */
  episodeGroups: number;
  /** Checkpoints remembered (the newest). */
  checkpoints: number;
}

export const defaultRunTallyLimits: RunTallyLimits = { sessions: 100_000, inTraining: 1000, waiting: 100_000, recentErrors: 20, episodeGroups: 200, checkpoints: 50 };

/** Finished episodes of a group or weight version: how many, how many failed (no score), the mean score of the rest. */
export interface OutcomeRate {
  finished: number;
  failed: number;
  /** Mean of the scores in [0, 1] (the success rate where scores are 0 or 1); null when none was scored. */
  rate: number | null;
}

export interface RunError {
  at: number;
  source: string;
  code: string;
  message: string;
  hint?: string;
}

/** The trainer's last logged step (trainer-metrics), its last sign of progress and whether it is stalled now. */
export interface TrainerCounts {
  step: number | null;
  loss: number | null;
  gradNorm: number | null;
  logprobDiff: number | null;
  lr: number | null;
  entropy: PolicyEntropy | null;
  lastStepAt: number | null;
  /** A step, a batch delivered or acknowledged, a new trainer. */
  lastProgressAt: number | null;
  /** When TRAINER_STALLED was said, until the trainer moves again. */
  stalledSince: number | null;
}

/** A checkpoint slime saved and that was not pruned since. */
export interface CheckpointCount {
  iteration: number;
  folder: string;
  bytes: number;
  savedAt: number;
}

/** Which run the counts are of: start's run id and when this orchestrator started. */
export interface RunIdentity {
  runId: string;
  startedAt: number;
}

export interface RunCounts {
  run: RunIdentity;
  sessions: number;
  turns: { main: number; side: number };
  /**
   * Main turns per client (User-Agent product), and of them those whose client asked for sampling it did not get
   * (sampling.client_settings: trainer) or that were drawn off-policy (honor, or a tool_choice grammar); bounded.
   */
  clients: ClientSampling[];
  /** Held-out evaluations per weight version (evaluation-tally.ts), apart from the training reward. */
  evaluation: EvaluationCounts;
  /** Training paused by evaluation.stop_if_worse (training-paused, until training-resumed): since when, why, how to resume; null when training. */
  trainingPause: { since: number; message: string; resume: string } | null;
  judging: {
    /** Main turns whose judging ended: samples.made + withoutSample (a turn judged again after feedback counts once, as it ended). */
    judged: number;
    /** Judged turns that made no sample, and those of them by category. */
    withoutSample: number;
    skipped: Partial<Record<SkipCategory, number>>;
    /** Closed main turns not judged yet. */
    waiting: number;
    /** Main turns answered and not closed: each waits for the session's next message (or its idle timeout). */
    open: number;
  };
  /** Where every sample is: made + fromEarlierRuns = ready + inTraining + trained + dropped.stale + dropped.invalid, after every event. */
  samples: SampleCounts;
  batches: { trained: number; delivered: number; lastDeliveredAt: number | null };
  /** Rewards of the samples made ready. */
  rewards: { count: number; mean: number | null; positive: number; zero: number; negative: number };
  weights: {
    /** The version served last: a finished update's, 0 after a reset, or the one a turn's tokens came from. */
    version: string | null;
    updating: boolean;
    lastUpdate: { at: number; toVersion: string; durationMs: number } | null;
    lastReset: { at: number; fromVersion: string; reason: string } | null;
  };
  /** In the order first seen; `since`: when the engine entered its state. */
  engines: Array<{ name: string; state: EngineState; detail: string; since: number }>;
  errors: { count: number; recent: RunError[] };
  trainer: TrainerCounts;
  /** method hybrid's dispatch cases, candidates and the trainer's selection numbers; null for other methods. */
  hybrid: HybridCounts | null;
  /** Newest iteration first (the most recent `checkpoints` limit). */
  checkpoints: CheckpointCount[];
  /** General-agent episodes: running (begun, no outcome yet), finished, and outcome rates per task group and weight version. */
  episodes: {
    running: number;
    finished: number;
    failed: number;
    rate: number | null;
    groups: Record<string, OutcomeRate>;
    /** In weight-version order; the first version seen is kept whatever the limit (the rate the run began with). */
    versions: Record<string, OutcomeRate>;
    /** Episodes this run plans (tasks × samples per task × epochs); null: no plan, or no end. */
    planned: number | null;
    /** When the first episode began (the ETA's clock). */
    firstStartedAt: number | null;
  };
  /** Since the records folder was created (the durable store's totals, earlier runs included); null without a store. */
  folder: { samplesTrained: number; droppedStale: number } | null;
  /** How soon trained samples reach the served weights (learning-latency.ts). */
  learningLatency: LearningLatencyCounts;
}

interface OutcomeSums {
  finished: number;
  failed: number;
  sum: number;
}

export class RunTally {
  readonly limits: RunTallyLimits;
  private readonly identity: RunIdentity;
  private readonly sessionIds = new Set<string>();
  private readonly turns = { main: 0, side: 0 };
  private readonly clients = new ClientSamplingTally();
  private readonly evaluations = new EvaluationTally();
  private readonly latency = new LearningLatency();
  private trainingPause: RunCounts["trainingPause"] = null;
  /** Where every sample is, and the judged turns without one. */
  private readonly samples: SampleTally;
  private readonly hybrid = new HybridTally();
  /** Closed main turns not judged yet, `session\u0000turn`, oldest first. */
  private readonly waiting = new Set<string>();
  /** Main turns answered and not closed, `session\u0000turn`, oldest first. */
  private readonly open = new Set<string>();
  private batchSize: number | null;
  private readonly batches = { trained: 0, delivered: 0, lastDeliveredAt: null as number | null };
  private readonly rewards = { count: 0, sum: 0, positive: 0, zero: 0, negative: 0 };
  private readonly weights: RunCounts["weights"] = { version: null, updating: false, lastUpdate: null, lastReset: null };
  private readonly engines = new Map<string, RunCounts["engines"][number]>();
  private errorCount = 0;
  private recentErrors: RunError[] = [];
  private readonly trainer: TrainerCounts = { step: null, loss: null, gradNorm: null, logprobDiff: null, lr: null, entropy: null, lastStepAt: null, lastProgressAt: null, stalledSince: null };
  /** By iteration. */
  private readonly checkpoints = new Map<number, CheckpointCount>();
  /** Episodes begun and not ended (ids; bounded like the sessions). */
  private readonly runningEpisodes = new Set<string>();
  private readonly episodeTotals: OutcomeSums = { finished: 0, failed: 0, sum: 0 };
  /** Per task group and per weight version, most recently updated last. */
  private readonly episodeGroups = new Map<string, OutcomeSums>();
  private readonly episodeVersions = new Map<string, OutcomeSums>();
  private firstEpisodeVersion: string | null = null;
  private episodePlan: number | null = null;
  private firstEpisodeAt: number | null = null;
  /** The store's totals from before this run (store-opened); null until a store said them. */
  private folderBase: { samplesTrained: number; droppedStale: number } | null = null;

  /** `batchSize`: the recipe's training.batch_size when known (otherwise the first sample-ready or delivery tells it). */
  constructor(batchSize: number | null = null, limits: Partial<RunTallyLimits> = {}, identity: Partial<RunIdentity> = {}) {
    this.batchSize = batchSize;
    this.limits = { ...defaultRunTallyLimits, ...limits };
    this.samples = new SampleTally({ inTraining: this.limits.inTraining, unsampled: this.limits.waiting });
    const startedAt = identity.startedAt ?? Date.now();
    this.identity = { runId: identity.runId ?? new Date(startedAt).toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-"), startedAt };
  }

  apply(event: RunEvent): void {
    this.samples.apply(event);
    this.hybrid.apply(event);
    this.latency.apply(event);
    if (isTrainerProgress(event)) {
      this.trainer.lastProgressAt = event.at;
      this.trainer.stalledSince = null;
    }
    switch (event.type) {
      case "turn-start":
        this.turns[event.turnType] += 1;
        if (this.sessionIds.size < this.limits.sessions) this.sessionIds.add(event.sessionId);
        return;
      case "turn-end": {
        this.servedVersion(event.weightVersions[event.weightVersions.length - 1]);
        if (event.turnType === "main") {
          addBounded(this.open, `${event.sessionId}\u0000${event.turn}`, this.limits.waiting);
          this.clients.count(event.client ?? "unknown", event.samplingAsked, event.offPolicy === true);
        }
        return;
      }
      case "turn-closed":
        this.open.delete(`${event.sessionId}\u0000${event.turn}`);
        addBounded(this.waiting, `${event.sessionId}\u0000${event.turn}`, this.limits.waiting);
        return;
      case "turn-judged":
        this.waiting.delete(`${event.sessionId}\u0000${event.turn}`);
        return;
      case "sample-ready":
        this.batchSize = event.batchSize;
        this.rewards.count += 1;
        this.rewards.sum += event.reward;
        if (event.reward > 0) this.rewards.positive += 1;
        else if (event.reward < 0) this.rewards.negative += 1;
        else this.rewards.zero += 1;
        return;
      case "batch-delivered":
        this.batches.delivered += 1;
        this.batches.lastDeliveredAt = event.at;
        this.batchSize ??= event.size; // without the recipe's batch size (and no sample-ready yet), a delivery tells it
        return;
      case "store-opened":
        this.folderBase = { samplesTrained: event.acknowledged, droppedStale: event.droppedStale };
        return;
      case "batch-acknowledged":
        this.batches.trained += 1; // (its samples: sample-tally.ts)
        return;
      case "weights-update-start":
        this.weights.updating = true;
        return;
      case "weights-version-seen":
        this.servedVersion(event.version);
        return;
      case "weights-update-end":
        this.weights.updating = false;
        this.weights.version = event.toVersion;
        this.weights.lastUpdate = { at: event.at, toVersion: event.toVersion, durationMs: event.durationMs };
        return;
      case "weights-version-reset":
        // slime restarted: its engines count from 0 ("default") again, the old version is served no more
        this.weights.updating = false;
        this.weights.version = "0";
        this.weights.lastReset = { at: event.at, fromVersion: event.fromVersion, reason: event.reason };
        // the batches the old trainer held stay out: the new one's first request acknowledges those its checkpoint
        // holds and is handed the others again, under the same ids
        return;
      case "engine-state":
        this.engines.set(event.name, { name: event.name, state: event.state, detail: event.detail, since: event.at });
        return;
      case "error":
        this.errorCount += 1;
        this.recentErrors = [...this.recentErrors, { at: event.at, source: event.source, code: event.code, message: event.message, ...(event.hint ? { hint: event.hint } : {}) }].slice(-this.limits.recentErrors);
        if (event.code === TRAINER_STALLED) this.trainer.stalledSince = event.at;
        return;
      case "trainer-metrics":
        Object.assign(this.trainer, { step: event.step, loss: event.loss, gradNorm: event.gradNorm, logprobDiff: event.logprobDiff, lr: event.lr, entropy: event.entropy ?? null, lastStepAt: event.at });
        return;
      case "checkpoint-saved":
        this.checkpoints.set(event.iteration, { iteration: event.iteration, folder: event.folder, bytes: event.bytes, savedAt: event.savedAt });
        if (this.checkpoints.size > this.limits.checkpoints) this.checkpoints.delete(Math.min(...this.checkpoints.keys()));
        return;
      case "checkpoint-pruned":
        this.checkpoints.delete(event.iteration);
        return;
      case "episodes-planned":
        this.episodePlan = event.planned;
        return;
      case "episode-start":
        if (this.runningEpisodes.size < this.limits.sessions) this.runningEpisodes.add(event.episodeId);
        this.firstEpisodeAt ??= event.at;
        return;
      case "episode-end":
        this.runningEpisodes.delete(event.episodeId);
        addOutcome(this.episodeTotals, event.score);
        this.addOutcomeTo(this.episodeGroups, event.groupId, event.score);
        if (event.weightVersion !== null) {
          const version = String(parseWeightVersion(event.weightVersion) ?? event.weightVersion); // ("default" is 0)
          this.firstEpisodeVersion ??= version;
          this.addOutcomeTo(this.episodeVersions, version, event.score, this.firstEpisodeVersion);
        }
        return;
      case "judge-vote":
        return;
      case "evaluation-done":
        this.evaluations.add(event);
        return;
      case "training-paused":
        this.trainingPause ??= { since: event.since ?? event.at, message: event.message, resume: event.resume };
        return;
      case "training-resumed":
        this.trainingPause = null;
        return;
    }
  }

  /** Past the limit the least recently updated entry is forgotten, never `keep`. */
  private addOutcomeTo(table: Map<string, OutcomeSums>, key: string, score: number | null, keep: string | null = null): void {
    const sums = table.get(key) ?? { finished: 0, failed: 0, sum: 0 };
    table.delete(key);
    table.set(key, sums);
    addOutcome(sums, score);
    if (table.size > this.limits.episodeGroups) table.delete([...table.keys()].find((each) => each !== keep)!);
  }

  counts(): RunCounts {
    const { sum, ...rewards } = this.rewards;
    const base = this.folderBase;
    const samples = this.samples.counts(this.batchSize);
    const unsampled = this.samples.unsampledCounts();
    return {
      run: { ...this.identity },
      sessions: this.sessionIds.size,
      turns: { ...this.turns },
      clients: this.clients.counts(),
      evaluation: this.evaluations.counts(),
      trainingPause: this.trainingPause && { ...this.trainingPause },
      judging: { judged: samples.made + unsampled.withoutSample, ...unsampled, waiting: this.waiting.size, open: this.open.size },
      samples,
      batches: { ...this.batches },
      rewards: { ...rewards, mean: rewards.count > 0 ? sum / rewards.count : null },
      weights: { ...this.weights },
      engines: [...this.engines.values()].map((engine) => ({ ...engine })),
      errors: { count: this.errorCount, recent: this.recentErrors },
      trainer: { ...this.trainer },
      hybrid: this.hybrid.counts(),
      checkpoints: [...this.checkpoints.values()].sort((left, right) => right.iteration - left.iteration).map((checkpoint) => ({ ...checkpoint })),
      episodes: {
        running: this.runningEpisodes.size,
        finished: this.episodeTotals.finished,
        failed: this.episodeTotals.failed,
        rate: rateOf(this.episodeTotals).rate,
        groups: Object.fromEntries([...this.episodeGroups].map(([key, sums]) => [key, rateOf(sums)])),
        versions: Object.fromEntries([...this.episodeVersions].sort(([left], [right]) => versionOrder(left) - versionOrder(right)).map(([key, sums]) => [key, rateOf(sums)])),
        planned: this.episodePlan,
        firstStartedAt: this.firstEpisodeAt,
      },
      learningLatency: this.latency.counts(),
      folder: base && { samplesTrained: base.samplesTrained + samples.trained, droppedStale: base.droppedStale + samples.dropped.stale },
    };
  }

  /** A version a turn was served with: the version shown only moves up (as the weight-version owner's), "default" is 0. */
  private servedVersion(served: string | undefined): void {
    if (served === undefined) return;
    const parsed = parseWeightVersion(served);
    const current = this.weights.version === null ? null : parseWeightVersion(this.weights.version);
    if (parsed === null) this.weights.version ??= served; // (not slime's: shown as it came, until a slime version)
    else if (current === null || parsed > current) this.weights.version = String(parsed);
  }
}

/** A weight version's place in order: slime's number ("default" is 0); a label that is none goes first. */
function versionOrder(version: string): number {
  return parseWeightVersion(version) ?? -1;
}

/** Adds to an insertion-ordered set, forgetting the oldest past the limit. */
function addBounded(set: Set<string>, key: string, limit: number): void {
  set.add(key);
  if (set.size > limit) set.delete(set.values().next().value!);
}

function addOutcome(sums: OutcomeSums, score: number | null): void {
  sums.finished += 1;
  if (score === null) sums.failed += 1;
  else sums.sum += score;
}

function rateOf(sums: OutcomeSums): OutcomeRate {
  const scored = sums.finished - sums.failed;
  return { finished: sums.finished, failed: sums.failed, rate: scored > 0 ? sums.sum / scored : null };
}
