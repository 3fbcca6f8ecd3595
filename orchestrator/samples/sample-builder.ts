// Builds the Sample record of one closed turn from a decision: exact engine tokens and log-probs, the loss mask,
// per-token weight versions, teacher fields. Refuses (with a reason) instead of padding, truncating or guessing.
import { SAMPLE_VERSION, type Sample } from "../../contracts/sample.ts";
import type { ClosedTurn, WeightVersionSpan } from "../../contracts/turn.ts";
import type { Decision } from "./sample-decision.ts";
import { plainArray } from "../../lib/worker-thread.ts";

export type BuildResult = { ok: true; sample: Sample } | { ok: false; reason: string };

export function sampleId(sessionId: string, turn: number): string {
  return `${sessionId}:${turn}`;
}

/** Why a turn can never become a sample, before any judging (null when it can). */
export function unusableTurnReason(turn: ClosedTurn): string | null {
  if (turn.finishReason === "abort") return "the generation was aborted (finish reason abort)";
  if (turn.responseIds.length === 0) return "empty response";
  if (turn.promptIds.length === 0) return "empty prompt";
  if (turn.responseLogProbs.length !== turn.responseIds.length) {
    return `the turn has ${turn.responseLogProbs.length} log-probs for ${turn.responseIds.length} response tokens`;
  }
  if (!turn.responseLogProbs.every(Number.isFinite)) return "the turn holds a non-finite rollout log-prob";
  const missing = turn.missingLogProbs ?? [];
  if (missing.some((index) => !Number.isInteger(index) || index < 0 || index >= turn.responseIds.length)) return "the turn lists a missing log-prob outside its response";
  if (missing.length > 0 && new Set(missing).size >= turn.responseIds.length) return "the engine gave no matching log-prob for any response token (passthrough)";
  const versions = expandWeightVersions(turn.weightVersions, turn.responseIds.length);
  if (typeof versions === "string") return versions;
  return null;
}

/** One weight version per response token, or a reason when the spans do not cover every token exactly once. */
export function expandWeightVersions(spans: readonly WeightVersionSpan[], length: number): string[] | string {
  const versions: (string | undefined)[] = new Array(length).fill(undefined);
  for (const span of spans) {
    if (span.start < 0 || span.end > length || span.start > span.end) return `weight version span [${span.start}, ${span.end}) is outside the ${length} response tokens`;
    for (let index = span.start; index < span.end; index += 1) {
      if (versions[index] !== undefined) return `response token ${index} has two weight versions`;
      versions[index] = span.version;
    }
  }
  const missing = versions.indexOf(undefined);
  if (missing >= 0) return `response token ${missing} has no weight version`;
  return versions as string[];
}

/** 1 per trained response token; 0 everywhere for a masked decision, and at tokens without an engine log-prob. */
function lossMask(length: number, masked: boolean, missingLogProbs: readonly number[]): number[] {
  const mask = new Array<number>(length).fill(masked ? 0 : 1);
  for (const index of missingLogProbs) mask[index] = 0;
  return mask;
}

/** The teacher's value per response token (and its top-K rows when asked), as judging aligned them to the response. */
export interface TeacherValues {
  logProbs: number[];
  topk: { logProbs: number[][]; indices: number[][] } | null;
}

export interface BuildInput {
  turn: ClosedTurn;
  decision: Extract<Decision, { make: true }>;
  teacher: TeacherValues | null;
  /** opd.teacher trainer: hinted prompt + response ids, for the trainer's teacher (in place of `teacher`). */
  teacherTokens?: number[] | null;
  evalScore: number | null;
  now: number;
}

export function buildSample({ turn, decision, teacher, teacherTokens = null, evalScore, now }: BuildInput): BuildResult {
  const unusable = unusableTurnReason(turn);
  if (unusable) return { ok: false, reason: unusable };
  const length = turn.responseIds.length;
  const weightVersions = expandWeightVersions(turn.weightVersions, length) as string[];
  const sample: Sample = {
    version: SAMPLE_VERSION,
    id: sampleId(turn.sessionId, turn.turn),
    sessionId: turn.sessionId,
    turn: turn.turn,
    kind: decision.kind,
    tokens: plainArray(turn.promptIds).concat(turn.responseIds),
    responseLength: length,
    lossMask: lossMask(length, decision.masked, turn.missingLogProbs ?? []),
    rolloutLogProbs: [...turn.responseLogProbs],
    reward: decision.reward,
    weightVersions,
    status: turn.finishReason === "length" ? "truncated" : "completed",
    why: decision.why,
    approximate: turn.approximate,
    ...(turn.sampling ? { sampling: { temperature: turn.sampling.temperature, top_p: turn.sampling.top_p, top_k: turn.sampling.top_k } } : {}),
    createdAt: now,
    answeredAt: turn.endedAt,
    ...(turn.closedAt === undefined ? {} : { closedAt: turn.closedAt }),
    evalScore,
  };
  if (decision.teacher === "rollout") sample.teacherLogProbs = [...turn.responseLogProbs];
  if (decision.teacher === "engine" && teacherTokens) {
    if (teacherTokens.length <= length) return { ok: false, reason: `${teacherTokens.length} teacher tokens hold no hinted prompt before the ${length} response tokens` };
    sample.teacherTokens = teacherTokens;
  } else if (decision.teacher === "engine") {
    if (!teacher) return { ok: false, reason: "the decision needs teacher log-probs and none were computed" };
    if (teacher.logProbs.length !== length) return { ok: false, reason: `${teacher.logProbs.length} teacher log-probs for ${length} response tokens` };
    sample.teacherLogProbs = teacher.logProbs;
    if (teacher.topk) {
      if (teacher.topk.logProbs.length !== length || teacher.topk.indices.length !== length) return { ok: false, reason: "teacher top-K rows do not match the response length" };
      sample.teacherTopkLogProbs = teacher.topk.logProbs;
      sample.teacherTopkIndices = teacher.topk.indices;
    }
  }
  return { ok: true, sample };
}
