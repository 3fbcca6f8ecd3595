// What judging a turn ends in: the outcome (a sample, or why none and its category), the turn's fresh judgement
// record and its votes as recorded, and the sample put into the sink. Ignores how the outcome was decided.
import type { SkipCategory } from "../../contracts/events.ts";
import type { Method } from "../../contracts/recipe.ts";
import type { Sample } from "../../contracts/sample.ts";
import type { SampleSink } from "../../contracts/sample-sink.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { JUDGEMENT_RECORD_VERSION, type JudgementRecord, type RecordedVote } from "../records/judgement-records.ts";
import type { ExplicitFeedback } from "./explicit-feedback.ts";
import type { Vote } from "./vote-tally.ts";

export interface JudgingOutcome {
  sample: Sample | null;
  skipped: string | null;
  category: SkipCategory | null;
}

/** Reports a judging error as a bus event (source "judge"). */
export type JudgingErrorReporter = (code: "INTERNAL" | "JUDGE_FAILED", message: string) => void;

export function newJudgementRecord(turn: ClosedTurn, method: Method, explicit: ExplicitFeedback | null): JudgementRecord {
  return {
    version: JUDGEMENT_RECORD_VERSION,
    at: Date.now(),
    sessionId: turn.sessionId,
    turn: turn.turn,
    method,
    attempt: 1,
    closedBy: turn.closedBy,
    nextStateRole: turn.nextState?.role ?? null,
    explicit,
    evaluation: null,
    hint: null,
    teacher: null,
    evalScore: null,
    sample: null,
    skipped: null,
  };
}

export function recordVote(vote: Vote, withHint: boolean): RecordedVote {
  return { index: vote.index, score: vote.score, ...(withHint ? { hint: vote.hint } : {}), raw: vote.raw, error: vote.error, attempts: vote.attempts, ms: vote.ms };
}

/** The sample put into the sink, or, when the sink refuses it, no sample with the reason (and the error reported). */
export async function storeSample(sink: SampleSink, sample: Sample, reportError: JudgingErrorReporter): Promise<JudgingOutcome> {
  try {
    await sink.put(sample);
  } catch (error) {
    reportError("INTERNAL", `sample ${sample.id} was not stored: ${(error as Error).message}`);
    return { sample: null, skipped: `the sink did not store the sample: ${(error as Error).message}`, category: "sink-failed" };
  }
  return { sample, skipped: null, category: null };
}
