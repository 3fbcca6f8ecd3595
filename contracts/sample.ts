// The training sample record: what judging makes and the trainer consumes. Versioned; a breaking change
// means a new SAMPLE_VERSION. Arrays are plain number[] here; the bridge packs them into binary frames.

export const SAMPLE_VERSION = 1 as const;

export type SampleKind = "rl" | "opd" | "combined" | "hybrid";
export type SampleStatus = "completed" | "truncated";

export interface Sample {
  version: typeof SAMPLE_VERSION;
  id: string; // unique, stable across restarts: `${sessionId}:${turn}`
  sessionId: string;
  turn: number;
  kind: SampleKind;
  tokens: number[]; // prompt ids + response ids
  responseLength: number;
  lossMask: number[]; // length responseLength, 0/1
  rolloutLogProbs: number[]; // length responseLength
  reward: number;
  teacherLogProbs?: number[]; // length responseLength
  teacherTopkLogProbs?: number[][]; // [responseLength][K]
  teacherTopkIndices?: number[][]; // [responseLength][K]
  /**
   * opd.teacher trainer: the teacher's token ids, the hinted prompt followed by the response (its last responseLength
   * ids are `tokens`' response), for the trainer's frozen teacher to score in one forward pass. Such a sample has no
   * teacherLogProbs: the trainer computes them.
   */
  teacherTokens?: number[];
  /**
   * method hybrid: one entry per hint candidate, each the candidate prompt's ids followed by the response's exact ids
   * (its last responseLength ids are `tokens`' response), shortest hint first. The trainer's frozen teacher computes
   * top-K rows per candidate, so such a sample has no teacherLogProbs, teacherTopk* or teacherTokens.
   */
  hintCandidates?: number[][];
  weightVersions: string[]; // one per response token
  status: SampleStatus;
  why: string; // which rule kept it, e.g. "binary: majority +1 of 3 votes"
  approximate: boolean;
  /** The sampling the response was drawn with (the rollout temperature, no filter, no penalty for a trained turn). */
  sampling?: { temperature: number; top_p: number; top_k: number };
  createdAt: number; // ms epoch: when judging built it (the "judged" moment of its learning latency)
  /** When the engine's answer to the turn ended, and when the turn closed (ms epoch; absent in older records). */
  answeredAt?: number;
  closedAt?: number;
  /** For metrics (rollout/prm_eval_score): the turn's evaluation score, when one was computed. */
  evalScore?: number | null;
  /**
   * The advantage the trainer uses for every response token, where it is not `reward` itself: an episode step's
   * reward standardised within its (group, step index) bucket (orchestrator/episodes/step-rewards.ts).
   */
  advantage?: number;
  /** A step of a general-agent episode: which one, and its reward's parts (`reward` is r_t = outcome + c·stepScore). */
  episode?: SampleEpisodeStep;
}

export interface SampleEpisodeStep {
  episodeId: string;
  /** The task group (the GRPO group) whose steps are standardised together. */
  groupId: string;
  stepIndex: number;
  /** Mean of the judge's valid votes on the step; null where there is none (p_t = 0 in the reward). */
  stepScore: number | null;
  /** The episode's outcome o = 2·score − 1. */
  outcome: number;
}

/** A sample's moments before it leaves for the trainer (ms epoch): the first three of its learning latency. */
export interface SampleStages {
  answeredAt: number;
  closedAt: number;
  judgedAt: number;
}
