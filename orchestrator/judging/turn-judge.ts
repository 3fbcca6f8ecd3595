// Judges one closed chat turn the pipeline found trainable into a Judgement: the judge's votes and hint, the sample
// decision, teacher scoring and the sample built. Reads the ledger, writes nothing shared: storing the sample, the
// ledger, the record and the events are the pipeline's (judge-pipeline.ts).
import type { Recipe } from "../../contracts/recipe.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { decideSample, METHOD_NEEDS, type JudgedSignals } from "../samples/sample-decision.ts";
import { buildSample, type BuildResult } from "../samples/sample-builder.ts";
import { dispatchHybrid, type HintVote, type HybridDispatch } from "../samples/hybrid-dispatch.ts";
import { buildHybridSample } from "../samples/hybrid-sample.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { hintedPromptIds } from "./hinted-prompt.ts";
import type { ExplicitFeedback } from "./explicit-feedback.ts";
import { judgementOf, recordVote, type Judgement, type JudgementNotes, type TeacherNote, type Verdict } from "./judgement.ts";
import type { TeacherOutcome, TeacherScorer } from "./teacher-scorer.ts";
import type { TurnLedgerView } from "./turn-ledger.ts";
import type { TurnVoter } from "./turn-voter.ts";
import { chooseHint, describeTally, tallyEvalVotes } from "./vote-tally.ts";

export interface TurnJudgeDeps {
  recipe: Recipe;
  voter: TurnVoter;
  teacher: TeacherScorer;
  /** The policy's chat template and tokenizer: the hybrid renders one hinted prompt per kept hint with them. */
  policy: { template: ChatTemplate; tokenizer: ModelTokenizer };
  /** Aborted at shutdown: a judge failure then is the shutdown's, not the judge's. */
  signal: AbortSignal;
}

/** The turn's judgement: its votes, hint and teacher, and the sample to store or the reason for none. */
export async function judgeTurn(turn: ClosedTurn, explicit: ExplicitFeedback | null, ledger: TurnLedgerView, deps: TurnJudgeDeps): Promise<Judgement> {
  const notes: JudgementNotes = { verdict: { sample: null, skipped: "", category: "invalid-turn" }, explicit, attempt: 1, evalScore: null, gate: null, effective: false, failure: null, evaluation: null, hint: null, teacher: null, hybrid: null };
  notes.verdict = await judge(turn, notes, ledger, deps);
  return judgementOf(deps.recipe.method, notes);
}

/** The verdict, each finding noted on the way (votes, hint, score, teacher, a failure to report). */
async function judge(turn: ClosedTurn, notes: JudgementNotes, ledger: TurnLedgerView, deps: TurnJudgeDeps): Promise<Verdict> {
  const { recipe } = deps;
  const { explicit } = notes;
  const method = recipe.method;
  const hasNextState = turn.nextState !== null;
  const needEval = METHOD_NEEDS[method].evaluation && explicit?.score == null && hasNextState;
  const needHint = METHOD_NEEDS[method].hint && explicit?.hint == null && hasNextState;
  const { evalVotes, hintVotes, attempts } = await deps.voter.collect(turn, needEval, needHint, method === "hybrid" ? recipe.derived.hybridVotes : undefined);
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
  if (method === "hybrid") {
    // every kept hint is a candidate: the dispatch reads the votes themselves (an explicit hint first, as one vote of 1)
    const votes: HintVote[] = [...(explicit?.hint ? [{ score: 1, hint: explicit.hint }] : []), ...(hintVotes ?? []).map((vote) => ({ score: vote.score, hint: vote.hint }))];
    const { min_hint_chars, max_candidates, fallback_to_unenhanced } = recipe.hybrid;
    signals.hybridDispatch = dispatchHybrid(votes, evalScore, { minHintChars: min_hint_chars, maxCandidates: max_candidates, fallbackToUnenhanced: fallback_to_unenhanced });
    notes.hybrid = { case: signals.hybridDispatch.case, hints: signals.hybridDispatch.make ? signals.hybridDispatch.hints : [], candidates: 0 };
  }
  const decision = decideSample(signals);
  if (!decision.make) {
    const judgeFailed = decision.category === "judge-failed";
    if (judgeFailed && deps.signal.aborted) return { sample: null, skipped: `shutdown before the judge answered (${decision.reason})`, category: "judge-failed" };
    if (judgeFailed) notes.failure = `${turn.sessionId}:${turn.turn}: ${decision.reason} after ${attempts} attempt(s); no sample (never trained as neutral)`;
    return { sample: null, skipped: decision.reason, category: decision.category };
  }

  let teacher: TeacherOutcome | null = null;
  if (decision.teacher === "engine") {
    teacher = await deps.teacher.score({ messages: turn.messages, tools: turn.tools, templateKwargs: turn.templateKwargs, promptIds: turn.promptIds, responseIds: turn.responseIds }, signals.hint!);
    notes.teacher = teacherNote(teacher, deps.teacher.topk);
    if (!teacher.ok) {
      notes.failure = `${turn.sessionId}:${turn.turn}: teacher scoring rejected: ${teacher.reason}`;
      return { sample: null, skipped: `teacher scoring rejected: ${teacher.reason}`, category: "teacher-failed" };
    }
  }
  const built = signals.hybridDispatch?.make
    ? await buildHybrid(turn, signals.hybridDispatch, evalScore, deps)
    : buildSample({ turn, decision, teacher: teacher?.ok ? teacher.values : null, teacherTokens: teacher?.ok ? teacher.teacherTokens : null, evalScore, now: Date.now() });
  if (notes.hybrid && built.ok) notes.hybrid.candidates = built.sample.hintCandidates?.length ?? 0;
  if (!built.ok) return { sample: null, skipped: built.reason, category: "invalid-turn" };
  notes.effective = METHOD_NEEDS[method].firstTurnGuarantee && !decision.masked;
  return { sample: built.sample, skipped: null, category: null };
}

/** The hybrid's sample: one hinted prompt per kept hint, rendered with the policy's template, then the candidates. */
async function buildHybrid(turn: ClosedTurn, dispatch: Extract<HybridDispatch, { make: true }>, evalScore: number | null, deps: TurnJudgeDeps): Promise<BuildResult> {
  const { template, tokenizer } = deps.policy;
  const hintedPrompts = await Promise.all(dispatch.hints.map((hint) => hintedPromptIds(turn.messages, turn.tools, hint, template, tokenizer, turn.templateKwargs)));
  return buildHybridSample({ turn, dispatch, hintedPrompts, evalScore, now: Date.now() });
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
