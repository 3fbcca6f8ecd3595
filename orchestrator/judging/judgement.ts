// What judging one turn returns, per method (a discriminated union), and the judgement record built once from it
// with the sample's fate. Writes nothing: the pipeline stores the sample, writes the record and announces it.
import type { SkipCategory } from "../../contracts/events.ts";
import type { Method } from "../../contracts/recipe.ts";
import type { Sample } from "../../contracts/sample.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { JUDGEMENT_RECORD_VERSION, type JudgementRecord, type RecordedVote } from "../records/judgement-records.ts";
import type { ExplicitFeedback } from "./explicit-feedback.ts";
import type { Vote } from "./vote-tally.ts";

/** A judged turn's sample (not stored yet), or why it makes none. */
export type Verdict = { sample: Sample; skipped: null; category: null } | { sample: null; skipped: string; category: SkipCategory };

export type EvaluationNote = NonNullable<JudgementRecord["evaluation"]>;
export type HintNote = NonNullable<JudgementRecord["hint"]>;
export type TeacherNote = NonNullable<JudgementRecord["teacher"]>;
export type GateNote = NonNullable<JudgementRecord["gate"]>;

interface JudgementCommon {
  verdict: Verdict;
  /** Feedback the turn came with (held for it, or a plain 👍 / 👎 next state). */
  explicit: ExplicitFeedback | null;
  /** How many times the judge was asked (1 + turn-level retries used). */
  attempt: number;
  evalScore: number | null;
  /** The sample gate refused the response. */
  gate: GateNote | null;
  /** binary's at-least-one guarantee counts the sample for its session once it is stored (not masked). */
  effective: boolean;
  /** A judge failure to report (JUDGE_FAILED) with the record: every vote failed, or the teacher was rejected. */
  failure: string | null;
}

/** binary: evaluation votes only. */
export interface BinaryJudgement extends JudgementCommon {
  method: "binary";
  evaluation: EvaluationNote | null;
}

/** opd: hint votes and the teacher's scoring under the hinted prompt. */
export interface OpdJudgement extends JudgementCommon {
  method: "opd";
  hint: HintNote | null;
  teacher: TeacherNote | null;
}

/** combine: both. */
export interface CombineJudgement extends JudgementCommon {
  method: "combine";
  evaluation: EvaluationNote | null;
  hint: HintNote | null;
  teacher: TeacherNote | null;
}

/** hybrid: hint votes (several candidates) and evaluation votes; the trainer's teacher scores the candidates. */
export interface HybridJudgement extends JudgementCommon {
  method: "hybrid";
  evaluation: EvaluationNote | null;
  hint: HintNote | null;
}

export type Judgement = BinaryJudgement | OpdJudgement | CombineJudgement | HybridJudgement;

/** What a method's judging found, before it is shaped into the method's Judgement. */
export interface JudgementNotes extends JudgementCommon {
  evaluation: EvaluationNote | null;
  hint: HintNote | null;
  teacher: TeacherNote | null;
}

/** The method's variant of the judgement: it keeps only what the method asks of judging. */
export function judgementOf(method: Method, notes: JudgementNotes): Judgement {
  const { evaluation, hint, teacher, ...common } = notes;
  switch (method) {
    case "binary":
      return { method, ...common, evaluation };
    case "opd":
      return { method, ...common, hint, teacher };
    case "combine":
      return { method, ...common, evaluation, hint, teacher };
    case "hybrid":
      return { method, ...common, evaluation, hint };
  }
}

/** Why the pipeline does not judge a turn: it can never be trained (unusable, gated), it is stale, the backlog is full. */
export interface NotJudged {
  skipped: string;
  category: SkipCategory;
  gate: GateNote | null;
}

/** A turn not judged: recorded with why, and the feedback it came with. */
export function unjudged(method: Method, why: NotJudged, explicit: ExplicitFeedback | null): Judgement {
  const verdict: Verdict = { sample: null, skipped: why.skipped, category: why.category };
  return judgementOf(method, { verdict, explicit, attempt: 1, evalScore: null, gate: why.gate, effective: false, failure: null, evaluation: null, hint: null, teacher: null });
}

export function recordVote(vote: Vote, withHint: boolean): RecordedVote {
  return { index: vote.index, score: vote.score, ...(withHint ? { hint: vote.hint } : {}), raw: vote.raw, error: vote.error, attempts: vote.attempts, ms: vote.ms };
}

/** What the record says of the sample it made: its id, kind, reward, why, and whether its loss mask is all 0. */
export function recordedSample(sample: Sample | null): JudgementRecord["sample"] {
  return sample ? { id: sample.id, kind: sample.kind, reward: sample.reward, why: sample.why, masked: sample.lossMask.every((bit) => bit === 0) } : null;
}

/** The fields every judgement record has, in the order they are written. */
export interface RecordBase {
  turn: ClosedTurn;
  method: Method;
  attempt: number;
  explicit: ExplicitFeedback | null;
  evaluation: EvaluationNote | null;
  hint: HintNote | null;
  teacher: TeacherNote | null;
  evalScore: number | null;
  /** The sample stored, or why none was (the verdict, or the sink's refusal). */
  settled: { sample: Sample | null; skipped: string | null };
  gate: GateNote | null;
  episode?: JudgementRecord["episode"];
  at: number;
}

export function judgementRecord(base: RecordBase): JudgementRecord {
  const { turn } = base;
  return {
    version: JUDGEMENT_RECORD_VERSION,
    at: base.at,
    sessionId: turn.sessionId,
    turn: turn.turn,
    method: base.method,
    attempt: base.attempt,
    closedBy: turn.closedBy,
    nextStateRole: turn.nextState?.role ?? null,
    explicit: base.explicit,
    evaluation: base.evaluation,
    hint: base.hint,
    teacher: base.teacher,
    evalScore: base.evalScore,
    sample: recordedSample(base.settled.sample),
    skipped: base.settled.skipped,
    ...(base.gate ? { gate: base.gate } : {}),
    ...(base.episode ? { episode: base.episode } : {}),
  };
}

/** A chat turn's record: its judgement with what became of the sample. */
export function turnRecord(turn: ClosedTurn, judgement: Judgement, settled: RecordBase["settled"], at: number): JudgementRecord {
  return judgementRecord({ turn, method: judgement.method, attempt: judgement.attempt, explicit: judgement.explicit, ...recordParts(judgement), evalScore: judgement.evalScore, settled, gate: judgement.gate, at });
}

/** The method's own parts of the record (a method without one records null). */
function recordParts(judgement: Judgement): Pick<RecordBase, "evaluation" | "hint" | "teacher"> {
  switch (judgement.method) {
    case "binary":
      return { evaluation: judgement.evaluation, hint: null, teacher: null };
    case "opd":
      return { evaluation: null, hint: judgement.hint, teacher: judgement.teacher };
    case "combine":
      return { evaluation: judgement.evaluation, hint: judgement.hint, teacher: judgement.teacher };
    case "hybrid":
      return { evaluation: judgement.evaluation, hint: judgement.hint, teacher: null };
  }
}
