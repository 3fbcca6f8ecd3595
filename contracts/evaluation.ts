// The held-out evaluation's file formats and results: the persona set (JSONL), one scored session, and the metrics
// of one weight version (evaluations.jsonl). Also the markers our simulator and scorer prompts carry (the stand-in judge reads them).
import { z } from "zod";

export const EVALUATION_VERSION = 1 as const;

/** One line of a persona set: a held-out conversation opener, the simulated user who says it, how to score the session. */
export const personaOpenerSchema = z
  .object({
    id: z.string().min(1).describe("Stable id of the opener; results are paired across versions by it."),
    persona: z.string().min(1).describe("Who the simulated user is and what they want, in the second person (the simulator's instructions)."),
    opener: z.string().min(1).describe("The user's first message, sent as it is."),
    rubric: z.string().min(1).describe("What the scorer checks in the whole session; it answers a score from 0 to 10."),
    turns: z.number().int().min(1).max(20).default(3).describe("Assistant replies in the session (the simulator writes turns − 1 follow-ups)."),
  })
  .strict();
export type PersonaOpener = z.output<typeof personaOpenerSchema>;

/** A held-out general-agent task: the environment task format (one {"task_meta": {...}} per line), as episodes.tasks. */
export const heldOutTaskSchema = z.object({ task_meta: z.record(z.string(), z.unknown()) }).passthrough();

/** One evaluated conversation: its transcript, the scorer's votes (0..10, null = unparseable) and the session's score in [0, 1]. */
export interface SessionResult {
  openerId: string;
  sample: number;
  transcript: Array<{ role: "user" | "assistant"; content: string }>;
  votes: Array<number | null>;
  /** Mean of the valid votes / 10; null when no vote was valid or the session failed. */
  score: number | null;
  failure: string | null;
}

export interface Interval {
  low: number;
  high: number;
}

/** General-agent metrics of one version: held-out tasks run `k` times each through the proxy as side turns. */
export const episodeMetricsSchema = z.object({
  tasks: z.number().int(),
  episodes: z.number().int(),
  /** Episodes that ended without a score (an environment or proxy failure): not in the rates. */
  failed: z.number().int(),
  /** Mean of the scores in [0, 1]; the Wilson interval counts a score of 1 as a success. */
  outcomeRate: z.number().nullable(),
  outcomeCi: z.object({ low: z.number(), high: z.number() }).nullable(),
  k: z.number().int(),
  /** Mean over tasks of the unbiased pass@k (a score of 1 passes); Wilson interval over tasks. */
  passAtK: z.number().nullable(),
  passAtKCi: z.object({ low: z.number(), high: z.number() }).nullable(),
});
export type EpisodeMetrics = z.infer<typeof episodeMetricsSchema>;

/** The metrics of one weight version on the held-out set (a line of evaluations.jsonl, the evaluation-done event's body). */
export const versionMetricsSchema = z.object({
  format: z.literal(`openclaw-rl-evaluation/${EVALUATION_VERSION}`),
  version: z.string(),
  /** The version served when the evaluation ended: when it differs, training went on meanwhile and the sessions mix versions. */
  versionAtEnd: z.string().optional(),
  /**
   * How the version was served: "live" (the running start's engine, through its proxy as side turns) or "checkpoint"
   * (saved weights loaded into a server of their own: a stand-in policy in rehearsal, SGLang with slime). Absent: live.
   */
  served: z.enum(["live", "checkpoint"]).optional(),
  /** With served "checkpoint": the weights loaded (a policy-vN.json or a Hugging Face folder; absent for the stand-in's base). */
  checkpoint: z.string().optional(),
  at: z.number(),
  sessions: z.number().int(),
  scored: z.number().int(),
  meanScore: z.number().nullable(),
  scoreCi: z.object({ low: z.number(), high: z.number() }).nullable(),
  /** Paired against the base on the same openers: P(this version's score > base's), ties counting half. */
  winRate: z.number().nullable(),
  winRateCi: z.object({ low: z.number(), high: z.number() }).nullable(),
  /** Null on a base row: the base weights' own evaluation (version 0, untrained), which later rows pair against. */
  baseVersion: z.string().nullable(),
  /** The run (start's run id) whose evaluation this is; null or absent: no run known (lines written before runs were recorded). */
  run: z.string().nullable().optional(),
  /** The run whose base row this one is paired with; another than `run` when an earlier run's base was reused (same basis). */
  baseRun: z.string().nullable().optional(),
  /** What makes two base rows interchangeable (evaluation-basis.ts): the base weights and the evaluation plan. */
  basis: z.object({ weights: z.string(), plan: z.string() }).optional(),
  /** Engine requests this evaluation cost: policy turns (through the proxy, side) and simulator/scorer calls. */
  requests: z.object({ policy: z.number().int(), simulator: z.number().int(), scorer: z.number().int() }),
  /** Score per session, keyed `openerId#sample` (the same simulator seeds in every version): what the pairing uses. */
  perSession: z.record(z.string(), z.number().nullable()),
  /** Held-out general-agent tasks (evaluation.tasks with an environment); absent without them. */
  episodes: episodeMetricsSchema.optional(),
});
export type VersionMetrics = z.infer<typeof versionMetricsSchema>;

/**
 * A held-out score significantly below the best version's (evaluation.stop_if_worse; orchestrator/evaluation/held-out-guard.ts):
 * both versions' mean scores with their 95% intervals, and the paired difference (this − best) over the sessions both
 * scored, with its 95% t interval, which lies wholly below 0.
 */
export interface HeldOutDrop {
  version: string;
  meanScore: number;
  scoreCi: Interval | null;
  bestVersion: string;
  bestMeanScore: number;
  bestScoreCi: Interval | null;
  difference: number;
  differenceCi: Interval;
  pairs: number;
}

/** Marks the simulator's system prompt (the stand-in judge answers as the persona when it sees it). */
export const SIMULATOR_MARKER = "## You are the user in this conversation";
/** Marks the scorer's prompt; the transcript follows SCORER_TRANSCRIPT as `[user]` / `[assistant]` blocks. */
export const SCORER_MARKER = "## Score this conversation against the rubric";
export const SCORER_TRANSCRIPT = "## The conversation";
