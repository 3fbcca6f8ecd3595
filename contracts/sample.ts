// The training sample record: what judging makes and the trainer consumes. Versioned; a breaking change
// means a new SAMPLE_VERSION. Arrays are plain number[] here; the bridge packs them into binary frames.

export const SAMPLE_VERSION = 1 as const;

export type SampleKind = "rl" | "opd" | "combined";
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
  weightVersions: string[]; // one per response token
  status: SampleStatus;
  why: string; // which rule kept it, e.g. "binary: majority +1 of 3 votes"
  approximate: boolean;
  createdAt: number; // ms epoch
  /** For metrics (rollout/prm_eval_score): the turn's evaluation score, when one was computed. */
  evalScore?: number | null;
}
