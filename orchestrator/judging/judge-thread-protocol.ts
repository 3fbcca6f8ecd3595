// The messages between the proxy's thread and the judging thread (judge-thread.ts ↔ judge-worker.ts), and the
// packing of closed turns and samples for the crossing: their long number arrays travel as transferred typed arrays
// (a 13K-id prompt posted as a plain array costs the sender about twice as much, every turn).
import type { Recipe } from "../../contracts/recipe.ts";
import type { Sample } from "../../contracts/sample.ts";
import type { PutOutcome } from "../../contracts/sample-sink.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { RunEvent, RunEventInput } from "../../contracts/events.ts";
import { flattenRows, splitRows } from "../samples/topk-rows.ts";
import { plainArray } from "../../lib/worker-thread.ts";
import type { FeedbackHeaders, FeedbackReply } from "./feedback-endpoint.ts";
import type { TurnEnded } from "./open-turns.ts";

/** What the judging thread is started with (workerData). */
export interface JudgeWorkerData {
  recipe: Recipe;
  recordsDir: string;
  /** Tokenizer sources (a path or builtin:NAME) of the policy and of the judge. */
  policySource: string;
  judgeSource: string;
  /** The judge engine's URL; null until slime announces its PRM router. */
  judgeUrl: string | null;
  retryBackoffMs?: number;
  turnRetries?: number;
  turnRetryDelayMs?: number;
  /** The run's WeightVersionTracker's shared cell: the thread reads the run's weight version there (sharedWeightVersion). */
  versions: SharedArrayBuffer;
}

export type PackedTurn = Omit<ClosedTurn, "responseIds" | "responseLogProbs"> & {
  responseIds: Int32Array;
  responseLogProbs: Float64Array;
};

export type PackedSample = Omit<Sample, "tokens" | "lossMask" | "rolloutLogProbs" | "teacherLogProbs" | "teacherTopkLogProbs" | "teacherTopkIndices" | "teacherTokens" | "hintCandidates"> & {
  tokens: Int32Array;
  teacherTokens?: Int32Array;
  lossMask: Int32Array;
  rolloutLogProbs: Float64Array;
  teacherLogProbs?: Float64Array;
  /** [rows][k] flattened row by row. */
  teacherTopk?: { rows: number; k: number; logProbs: Float64Array; indices: Int32Array };
  /** The hybrid's candidates, concatenated in order, with each one's length. */
  hintCandidates?: { lengths: number[]; ids: Int32Array };
};

export type ToJudgeWorker =
  | { type: "turn-closed"; turn: PackedTurn }
  /** Main turns that ended and had not closed, handed on before a feedback request (or the oldest beyond the limit). */
  | { type: "turns-ended"; turns: TurnEnded[] }
  /** An event of the proxy's bus judging follows (judgingFollows), handed to JudgePipeline.follow. */
  | { type: "event"; event: RunEvent }
  | { type: "feedback"; id: number; body: unknown; headers: FeedbackHeaders }
  | { type: "judge-url"; url: string }
  /** The sink's answer to a sample: its outcome, or why it was not stored. */
  | { type: "sample-stored"; id: number; error: string | null; outcome?: PutOutcome }
  | { type: "drain"; timeoutMs: number };

export type FromJudgeWorker =
  | { type: "ready" }
  /** The start-up error, as an OpenclawRlError's parts (a tokenizer file that cannot be read: TEMPLATE_ERROR). */
  | { type: "start-failed"; code: string; message: string; path?: string; hint?: string }
  | { type: "event"; event: RunEventInput }
  | { type: "sample"; id: number; sample: PackedSample }
  | { type: "feedback-reply"; id: number; reply: FeedbackReply }
  | { type: "drained" };

/** The run's events judging follows (the thread is sent these): an episode's end. */
export function judgingFollows(event: RunEvent): boolean {
  return event.type === "episode-end";
}

/** The id arrays copied into typed arrays of their own, to transfer (the prompt ids are shared with the proxy's tokenizer memo). */
export function packTurn(turn: ClosedTurn): { turn: PackedTurn; transfer: ArrayBuffer[] } {
  const packed: PackedTurn = { ...turn, promptIds: turn.promptIds.slice(), responseIds: Int32Array.from(turn.responseIds), responseLogProbs: Float64Array.from(turn.responseLogProbs) };
  return { turn: packed, transfer: [packed.promptIds.buffer as ArrayBuffer, packed.responseIds.buffer as ArrayBuffer, packed.responseLogProbs.buffer as ArrayBuffer] };
}

export function unpackTurn(packed: PackedTurn): ClosedTurn {
  return { ...packed, responseIds: plainArray(packed.responseIds), responseLogProbs: plainArray(packed.responseLogProbs) };
}

export function packSample(sample: Sample): { sample: PackedSample; transfer: ArrayBuffer[] } {
  const { tokens, lossMask, rolloutLogProbs, teacherLogProbs, teacherTopkLogProbs, teacherTopkIndices, teacherTokens, hintCandidates, ...rest } = sample;
  const packed: PackedSample = { ...rest, tokens: Int32Array.from(tokens), lossMask: Int32Array.from(lossMask), rolloutLogProbs: Float64Array.from(rolloutLogProbs) };
  if (hintCandidates) packed.hintCandidates = { lengths: hintCandidates.map((candidate) => candidate.length), ids: Int32Array.from(hintCandidates.flat()) };
  if (teacherLogProbs) packed.teacherLogProbs = Float64Array.from(teacherLogProbs);
  if (teacherTokens) packed.teacherTokens = Int32Array.from(teacherTokens);
  if (teacherTopkLogProbs && teacherTopkIndices) {
    const k = teacherTopkLogProbs[0]?.length ?? 0;
    if (teacherTopkIndices.length !== teacherTopkLogProbs.length) {
      throw new OpenclawRlError("BAD_REQUEST", `sample ${sample.id}: teacherTopkIndices has ${teacherTopkIndices.length} rows, teacherTopkLogProbs ${teacherTopkLogProbs.length}`, { path: "teacherTopkIndices" });
    }
    const logProbs = flattenRows(teacherTopkLogProbs, k, `sample ${sample.id}: teacherTopkLogProbs`, "teacherTopkLogProbs");
    const indices = flattenRows(teacherTopkIndices, k, `sample ${sample.id}: teacherTopkIndices`, "teacherTopkIndices");
    packed.teacherTopk = { rows: teacherTopkLogProbs.length, k, logProbs: Float64Array.from(logProbs), indices: Int32Array.from(indices) };
  }
  const transfer = [packed.tokens, packed.lossMask, packed.rolloutLogProbs, packed.teacherLogProbs, packed.teacherTokens, packed.teacherTopk?.logProbs, packed.teacherTopk?.indices, packed.hintCandidates?.ids]
    .filter((array) => array !== undefined)
    .map((array) => array.buffer as ArrayBuffer);
  return { sample: packed, transfer };
}

export function unpackSample(packed: PackedSample): Sample {
  const { tokens, lossMask, rolloutLogProbs, teacherLogProbs, teacherTopk, teacherTokens, hintCandidates, ...rest } = packed;
  const sample: Sample = { ...rest, tokens: plainArray(tokens), lossMask: plainArray(lossMask), rolloutLogProbs: plainArray(rolloutLogProbs) };
  if (hintCandidates) {
    let start = 0;
    sample.hintCandidates = hintCandidates.lengths.map((length) => plainArray(hintCandidates.ids.subarray(start, (start += length))));
  }
  if (teacherLogProbs) sample.teacherLogProbs = plainArray(teacherLogProbs);
  if (teacherTokens) sample.teacherTokens = plainArray(teacherTokens);
  if (teacherTopk) {
    sample.teacherTopkLogProbs = splitRows(plainArray(teacherTopk.logProbs), teacherTopk.rows, teacherTopk.k);
    sample.teacherTopkIndices = splitRows(plainArray(teacherTopk.indices), teacherTopk.rows, teacherTopk.k);
  }
  return sample;
}
