// Typed events of a run: one discriminated union with noun-verb names. The orchestrator emits them on its
// event bus; the status API streams them over ws; the dashboard and `status --watch` render them.
import type { EpisodeMetrics, HeldOutDrop } from "./evaluation.ts";
import type { SampleKind, SampleStages } from "./sample.ts";
import type { FinishReason } from "./turn.ts";
import type { Method } from "./recipe.ts";

export const EVENT_VERSION = 1 as const;

interface EventBase {
  at: number; // ms epoch
}

export const ENGINE_STATES = ["starting", "ready", "degraded", "down", "stopped", "failed"] as const;
export type EngineState = (typeof ENGINE_STATES)[number];

/** Why a judged main turn made no sample: turn-judged's skipCategory; status counts the skipped turns by it. */
export const SKIP_CATEGORIES = [
  "aborted",
  "empty-response",
  "invalid-turn",
  "no-next-state",
  "no-hint",
  "no-signal",
  "judge-failed",
  "teacher-failed",
  "sink-failed",
  "stale",
  "backlog-full",
  // the sample gate (orchestrator/samples/sample-gate.ts)
  "off-policy",
  "truncated",
  "near-empty",
  "repetition",
] as const;
export type SkipCategory = (typeof SKIP_CATEGORIES)[number];

export type RunEvent = EventBase &
  (
    | { type: "turn-start"; sessionId: string; turn: number; turnType: "main" | "side"; decidedBy: string }
    | {
        type: "turn-end";
        sessionId: string;
        turn: number;
        turnType: "main" | "side";
        finishReason: FinishReason;
        promptTokens: number;
        responseTokens: number;
        ttftMs: number | null;
        totalMs: number;
        weightVersions: string[];
        continuedAfterAbort: number;
        /** The client, by its User-Agent's product name (orchestrator/proxy/client-label.ts). */
        client?: string;
        /** A main turn's sampling settings its client asked for and did not get (sampling.client_settings: trainer). */
        samplingAsked?: Record<string, number>;
        /** Drawn with the client's settings, off the trainer's distribution (sampling.client_settings: honor): not trained. */
        offPolicy?: boolean;
      }
    | { type: "turn-closed"; sessionId: string; turn: number; closedBy: string; nextStateRole: "user" | "tool" | null }
    | { type: "judge-vote"; sessionId: string; turn: number; purpose: "eval" | "hint"; vote: number | null; ok: boolean; error?: string }
    | {
        type: "turn-judged";
        sessionId: string;
        turn: number;
        method: Method;
        score: number | null;
        hintAccepted: boolean | null;
        sample: { kind: SampleKind; reward: number; why: string } | null;
        skipped: string | null;
        /** Why no sample, as a category. */
        skipCategory?: SkipCategory | null;
        /** method hybrid: the dispatch case and the sample's candidate count (0 without one). */
        hybrid?: { case: "hint-and-evaluation" | "hint-only" | "evaluation-only" | "neither"; candidates: number };
      }
    | { type: "sample-ready"; sampleId: string; sessionId: string; turn: number; kind: SampleKind; reward: number; ready: number; batchSize: number }
    /** ready: the store's samples toward the next batch after the drop (where a store counts them). */
    | { type: "sample-dropped"; sampleId: string; reason: "stale" | "invalid"; detail: string; ready?: number }
    | {
        type: "batch-delivered";
        rolloutId: number;
        batchId: string;
        size: number;
        meanReward: number;
        evalScore: number | null;
        counts: { positive: number; zero: number; negative: number };
        /**
         * Sessions in the batch, the most samples one holds, samples held back by the session share, whether the share
         * was relaxed, and the sessions with a sample ready then with the most one could hold (the share fits them).
         */
        composition?: { sessions: number; largestSession: number; heldBack: number; relaxed: boolean; activeSessions?: number; perSession?: number };
        /** The store's samples toward the next batch once this one left. */
        ready?: number;
        /** Its samples' answer, close and judging moments (those that recorded them): the learning latency's first stages. */
        stages?: SampleStages[];
      }
    /**
     * `ready` ≥ `size`, yet no batch can be made within the per-session share (training.fair_batch) until more
     * sessions' samples come or the held-back ones have waited relax_after_s: said as the sample that makes a batch's
     * worth is stored, and when the trainer asked and waited in vain. `activeSessions`: sessions with a sample ready;
     * `perSession`: the most of a batch one may hold; `sessions`: those over it with their ready counts (most first);
     * `completesAt`: when the held-back samples complete a batch (absent from events recorded before them).
     */
    | {
        type: "batch-held";
        ready: number;
        size: number;
        activeSessions?: number;
        perSession?: number;
        sessions?: Array<{ unit: string; ready: number }>;
        completesAt?: number | null;
      }
    /** A handed-out batch given back untrained (its client went away): its samples are ready again. */
    | { type: "batch-released"; batchId: string; size: number; ready: number }
    /**
     * The durable sample store as this run found it in the records folder: samples ready (made by earlier runs),
     * batches still out to a trainer, and the totals since the folder was created (samples trained, dropped stale).
     */
    | { type: "store-opened"; ready: number; outstanding: Array<{ batchId: string; size: number }>; acknowledged: number; droppedStale: number }
    | { type: "batch-acknowledged"; rolloutId: number; batchId: string }
    | { type: "weights-update-start"; fromVersion: string }
    | { type: "weights-update-end"; toVersion: string; durationMs: number }
    /** The engines' weight version as the run first saw it (no update: the version they started with). */
    | { type: "weights-version-seen"; version: string }
    /**
     * slime started again (a new rollout-function session said hello on the bridge): its weight-version counter starts
     * again at 0, so the tracked version drops to 0 and counts up from the new engines' versions.
     */
    | { type: "weights-version-reset"; fromVersion: string; reason: string }
    /** The first step of a general-agent episode began (a request with X-Episode-Id). */
    | { type: "episode-start"; episodeId: string; groupId: string }
    /**
     * An episode reported its outcome: score in [0, 1], or null with the failure (no evaluation). steps: its main turns
     * that completed; weightVersion: the version of its last step's last token.
     */
    | { type: "episode-end"; episodeId: string; groupId: string; score: number | null; failure: string | null; steps: number; weightVersion: string | null }
    /** The episode driver's plan, before its first episode: tasks × samples_per_task × epochs episodes. */
    | { type: "episodes-planned"; planned: number; tasks: number; samplesPerTask: number; epochs: number }
    /**
     * The episode driver ran every planned episode (its epochs are done; the run stays up: see docs/episodes.md):
     * how many finished with a score and failed, and the mean score of the scored ones.
     */
    | { type: "episodes-done"; planned: number; scored: number; failed: number; outcomeRate: number | null }
    /**
     * One training step as slime's trainer logged it (native/openclaw_rl/trainer_metrics.py → POST /v1/metrics). step:
     * slime's train/step; logprobDiff: train_rollout_logprob_abs_diff, the mean |train − rollout| log-prob of the
     * step's tokens; lr: the first parameter group's; metrics: every number of the step, by slime's key; entropy: the
     * policy's, labelled with who computed it (absent from events recorded before it existed).
     */
    | {
        type: "trainer-metrics";
        step: number;
        loss: number | null;
        gradNorm: number | null;
        logprobDiff: number | null;
        lr: number | null;
        metrics: Record<string, number>;
        entropy?: PolicyEntropy | null;
      }
    /** A checkpoint iteration slime finished saving in training.save_dir (the tracker names it or a later one). */
    | { type: "checkpoint-saved"; iteration: number; folder: string; bytes: number; savedAt: number }
    /** A checkpoint deleted to keep training.keep_checkpoints. */
    | { type: "checkpoint-pruned"; iteration: number; folder: string }
    | { type: "engine-state"; name: string; state: EngineState; detail: string }
    /**
     * A held-out evaluation of one served weight version finished (orchestrator/evaluation/, docs/evaluation.md):
     * its mean score in [0, 1] with a 95% interval, its paired win rate against the base with a Wilson interval, and
     * what it cost in engine requests. Never mixed with the training reward.
     */
    | {
        type: "evaluation-done";
        version: string;
        /** The version served when it ended; another than `version` when training went on meanwhile (its sessions mix the two). */
        versionAtEnd: string;
        /** Null on a base row (the base weights' own evaluation). */
        baseVersion: string | null;
        /** The run whose evaluation it is (absent: not recorded); a base row of another run than this one was reused (same base weights and plan). */
        run?: string | null;
        sessions: number;
        scored: number;
        meanScore: number | null;
        scoreCi: { low: number; high: number } | null;
        winRate: number | null;
        winRateCi: { low: number; high: number } | null;
        requests: { policy: number; simulator: number; scorer: number };
        /** Held-out episodes' outcome rate and pass@k with Wilson intervals (contracts/evaluation.ts); null without held-out tasks. */
        episodes: EpisodeMetrics | null;
      }
    /**
     * Training paused (evaluation.stop_if_worse: `drop` says which version fell how far below the best): the bridge hands
     * the trainer no new batch until it is resumed; the proxy keeps serving and samples keep being made. `message`
     * is the sentence every screen shows; `resume` how to resume. `since`: when the pause began, where that was before
     * this event (a pause recorded in the run folder, said again after a restart of `start`); absent: at `at`.
     */
    | { type: "training-paused"; reason: "held-out-worse"; message: string; resume: string; drop: HeldOutDrop; since?: number }
    /** Training resumed after a pause: batches are handed out again. `by`: who resumed it (the admin route). */
    | { type: "training-resumed"; pausedAt: number; by: string }
    | { type: "error"; source: string; code: string; message: string; hint?: string }
  );

/**
 * The policy's mean entropy per response token in a training step, and who computed it: openclaw_rl's losses
 * (native/openclaw_rl/losses.py, `openclaw_rl_entropy`), or slime's own `entropy_loss`, which is wrong on the fork
 * without an entropy term (docs/native.md) and is shown only where no loss of ours reported one.
 */
export interface PolicyEntropy {
  value: number;
  source: EntropySource;
}
export const ENTROPY_SOURCES = ["openclaw_rl", "slime"] as const;
export type EntropySource = (typeof ENTROPY_SOURCES)[number];

/** Omit `at` from a union member while keeping the union distributed. */
export type RunEventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, "at"> : never) : never;
