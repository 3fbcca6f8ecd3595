// Judges one closed chat turn into a Judgement: whether it can be trained at all (unusable or gated), the judge's
// votes and hint, the sample decision, teacher scoring and the sample built. Reads the ledger, writes nothing shared:
// storing the sample, the ledger, the record and the events are the pipeline's (judge-pipeline.ts).
import type { SkipCategory } from "../../contracts/events.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { decideSample, METHOD_NEEDS, type JudgedSignals } from "../samples/sample-decision.ts";
import { buildSample, unusableTurnReason } from "../samples/sample-builder.ts";
import { gateTurn } from "../samples/sample-gate.ts";
import { detectExplicitScore, type ExplicitFeedback } from "./explicit-feedback.ts";
import { judgementOf, recordVote, type GateNote, type Judgement, type JudgementNotes, type TeacherNote } from "./judgement.ts";
import type { TeacherOutcome, TeacherScorer } from "./teacher-scorer.ts";
import type { TurnLedgerView } from "./turn-ledger.ts";
import type { TurnVoter } from "./turn-voter.ts";
import { chooseHint, describeTally, tallyEvalVotes } from "./vote-tally.ts";

export interface TurnJudgeDeps {
  recipe: Recipe;
  voter: TurnVoter;
  teacher: TeacherScorer;
  /** Aborted at shutdown: a judge failure then is the shutdown's, not the judge's. */
  signal: AbortSignal;
}

/** Why a turn can never be trained (null when it can): unusable (aborted, empty, log-probs or versions that do not fit), or gated. */
export type Refusal = { skipped: string; category: SkipCategory; gate: GateNote | null };

export function refusal(turn: ClosedTurn, recipe: Recipe): Refusal | null {
  const unusable = unusableTurnReason(turn);
  if (unusable) return { skipped: unusable, category: turn.finishReason === "abort" ? "aborted" : turn.responseIds.length === 0 ? "empty-response" : "invalid-turn", gate: null };
  const gate = gateTurn(turn, recipe.training.sample_gate);
  if (gate.pass) return null;
  return { skipped: `sample gate: ${gate.reason}`, category: gate.category, gate: { category: gate.category, reason: gate.reason } };
}

/** The feedback a turn came with: what the endpoint held for it, else a next state that is plainly 👍 / 👎. */
export function explicitFeedback(turn: ClosedTurn, held: ExplicitFeedback | null): ExplicitFeedback | null {
  if (held && (held.score !== null || held.hint !== null)) {
    if (held.score === null && turn.nextState?.role === "user") {
      const detected = detectExplicitScore(turn.nextState.text);
      if (detected !== null) return { ...held, score: detected };
    }
    return held;
  }
  if (turn.nextState?.role !== "user") return null;
  const score = detectExplicitScore(turn.nextState.text);
  return score === null ? null : { score, hint: null, source: "message" };
}

/** The turn's judgement: refused, or judged (votes, hint, teacher) into a sample to store or the reason for none. */
export async function judgeTurn(turn: ClosedTurn, explicit: ExplicitFeedback | null, ledger: TurnLedgerView, deps: TurnJudgeDeps): Promise<Judgement> {
  const { recipe } = deps;
  const method = recipe.method;
  const notes: JudgementNotes = { verdict: { sample: null, skipped: "", category: "invalid-turn" }, explicit, attempt: 1, evalScore: null, gate: null, effective: false, failure: null, evaluation: null, hint: null, teacher: null };
  const skip = (skipped: string, category: SkipCategory, failure: string | null = null): Judgement => judgementOf(method, { ...notes, verdict: { sample: null, skipped, category }, failure });
  const refused = refusal(turn, recipe);
  if (refused) {
    notes.gate = refused.gate;
    return skip(refused.skipped, refused.category);
  }

  const hasNextState = turn.nextState !== null;
  const needEval = METHOD_NEEDS[method].evaluation && explicit?.score == null && hasNextState;
  const needHint = METHOD_NEEDS[method].hint && explicit?.hint == null && hasNextState;
  const { evalVotes, hintVotes, attempts } = await deps.voter.collect(turn, needEval, needHint);
  notes.attempt = attempts;

  const tally = evalVotes ? tallyEvalVotes(evalVotes) : null;
  const choice = hintVotes ? chooseHint(hintVotes, recipe.opd.min_hint_chars) : null;
  if (tally) notes.evaluation = { votes: evalVotes!.map((vote) => recordVote(vote, false)), score: tally.allFailed ? null : tally.score, valid: tally.valid, failed: tally.failed, counts: tally.counts };
  if (choice) notes.hint = { votes: hintVotes!.map((vote) => recordVote(vote, true)), kept: choice.hint, fromVote: choice.fromVote, reason: choice.reason };
  const evalScore = explicit?.score ?? (tally && !tally.allFailed ? tally.score : null);
  notes.evalScore = evalScore;

  const signals: JudgedSignals = {
    method,
    hasNextState,
    evalScore,
    evalSource: explicit?.score != null ? "explicit" : tally && !tally.allFailed ? "votes" : null,
    evalFailed: tally?.allFailed ?? false,
    evalDetail: tally ? describeTally(tally, evalVotes!.length) : "",
    hint: explicit?.hint ?? choice?.hint ?? null,
    hintSource: explicit?.hint ? "explicit" : choice?.hint ? "votes" : null,
    hintFailed: choice?.allFailed ?? false,
    hintReason: choice?.reason ?? null,
    sessionHasEffectiveSample: ledger.hasEffectiveSample(turn.sessionId),
  };
  const decision = decideSample(signals);
  if (!decision.make) {
    const judgeFailed = decision.category === "judge-failed";
    if (judgeFailed && deps.signal.aborted) return skip(`shutdown before the judge answered (${decision.reason})`, "judge-failed");
    return skip(decision.reason, decision.category, judgeFailed ? `${turn.sessionId}:${turn.turn}: ${decision.reason} after ${attempts} attempt(s); no sample (never trained as neutral)` : null);
  }

  let teacher: TeacherOutcome | null = null;
  if (decision.teacher === "engine") {
    teacher = await deps.teacher.score({ messages: turn.messages, tools: turn.tools, templateKwargs: turn.templateKwargs, promptIds: turn.promptIds, responseIds: turn.responseIds }, signals.hint!);
    notes.teacher = teacherNote(teacher, deps.teacher.topk);
    if (!teacher.ok) return skip(`teacher scoring rejected: ${teacher.reason}`, "teacher-failed", `${turn.sessionId}:${turn.turn}: teacher scoring rejected: ${teacher.reason}`);
  }
  const built = buildSample({ turn, decision, teacher: teacher?.ok ? teacher.values : null, teacherTokens: teacher?.ok ? teacher.teacherTokens : null, evalScore, now: Date.now() });
  if (!built.ok) return skip(built.reason, "invalid-turn");
  notes.effective = METHOD_NEEDS[method].firstTurnGuarantee && !decision.masked;
  return judgementOf(method, { ...notes, verdict: { sample: built.sample, skipped: null, category: null } });
}

/** What the record says of the teacher's scoring. */
function teacherNote(outcome: TeacherOutcome, topk: number): TeacherNote {
  return {
    ok: outcome.ok,
    reason: outcome.ok ? null : outcome.reason,
    promptLength: outcome.promptLength,
    logprobStartLen: outcome.logprobStartLen,
    topk,
    promptReproduced: outcome.ok ? outcome.promptReproduced : null,
    temperature: outcome.temperature,
    scoring: outcome.scoring,
    requests: outcome.requests,
  };
}
