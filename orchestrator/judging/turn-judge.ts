// Decides one closed chat turn: the explicit feedback for it, whether it can be trained at all (unusable or gated),
// the judge's votes and hint, the sample decision, teacher scoring, the sample built and stored, all noted in its
// judgement record. Ignores when and in what order turns are judged (judge-pipeline.ts) and episode steps.
import type { Recipe } from "../../contracts/recipe.ts";
import type { SampleSink } from "../../contracts/sample-sink.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import type { JudgementRecord } from "../records/judgement-records.ts";
import { decideSample, METHOD_NEEDS, type JudgedSignals } from "../samples/sample-decision.ts";
import { buildSample, unusableTurnReason } from "../samples/sample-builder.ts";
import { gateTurn } from "../samples/sample-gate.ts";
import { detectExplicitScore, type ExplicitFeedback } from "./explicit-feedback.ts";
import { recordVote, storeSample, type JudgingErrorReporter, type JudgingOutcome } from "./judgement-outcome.ts";
import type { TeacherOutcome, TeacherScorer } from "./teacher-scorer.ts";
import type { TurnLedger } from "./turn-ledger.ts";
import type { TurnVoter } from "./turn-voter.ts";
import { chooseHint, describeTally, tallyEvalVotes } from "./vote-tally.ts";

export interface TurnJudgeDeps {
  recipe: Recipe;
  voter: TurnVoter;
  teacher: TeacherScorer;
  ledger: TurnLedger;
  sink: SampleSink;
  /** Aborted at shutdown: a judge failure then is the shutdown's, not the judge's. */
  signal: AbortSignal;
  reportError: JudgingErrorReporter;
}

export class TurnJudge {
  constructor(private readonly deps: TurnJudgeDeps) {}

  /**
   * Why a turn can never be trained, as the outcome to record (null when it can): it is unusable (aborted, empty, its
   * log-probs or versions do not fit), or the sample gate refuses it (then `record`, when given, says why).
   */
  refusal(turn: ClosedTurn, record?: JudgementRecord): JudgingOutcome | null {
    const unusable = unusableTurnReason(turn);
    if (unusable) return { sample: null, skipped: unusable, category: turn.finishReason === "abort" ? "aborted" : turn.responseIds.length === 0 ? "empty-response" : "invalid-turn" };
    const gate = gateTurn(turn, this.deps.recipe.training.sample_gate);
    if (gate.pass) return null;
    if (record) record.gate = { category: gate.category, reason: gate.reason };
    return { sample: null, skipped: `sample gate: ${gate.reason}`, category: gate.category };
  }

  /** Endpoint feedback held for the turn, else a next state that is plainly 👍 / 👎. */
  explicitFeedback(turn: ClosedTurn): ExplicitFeedback | null {
    const held = this.deps.ledger.takeHeld(turn.sessionId, turn.turn);
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

  /** The turn's outcome: refused, or judged (votes, hint, teacher) into a stored sample or the reason for none. */
  async decide(turn: ClosedTurn, explicit: ExplicitFeedback | null, record: JudgementRecord): Promise<JudgingOutcome> {
    const refused = this.refusal(turn, record);
    if (refused) return refused;
    const { recipe, ledger } = this.deps;

    const method = recipe.method;
    const hasNextState = turn.nextState !== null;
    const needEval = METHOD_NEEDS[method].evaluation && explicit?.score == null && hasNextState;
    const needHint = METHOD_NEEDS[method].hint && explicit?.hint == null && hasNextState;
    const { evalVotes, hintVotes, attempts } = await this.deps.voter.collect(turn, needEval, needHint);
    record.attempt = attempts;

    const tally = evalVotes ? tallyEvalVotes(evalVotes) : null;
    const choice = hintVotes ? chooseHint(hintVotes, recipe.opd.min_hint_chars) : null;
    if (tally) record.evaluation = { votes: evalVotes!.map((vote) => recordVote(vote, false)), score: tally.allFailed ? null : tally.score, valid: tally.valid, failed: tally.failed, counts: tally.counts };
    if (choice) record.hint = { votes: hintVotes!.map((vote) => recordVote(vote, true)), kept: choice.hint, fromVote: choice.fromVote, reason: choice.reason };
    const evalScore = explicit?.score ?? (tally && !tally.allFailed ? tally.score : null);
    record.evalScore = evalScore;

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
      if (judgeFailed && this.deps.signal.aborted) return { sample: null, skipped: `shutdown before the judge answered (${decision.reason})`, category: "judge-failed" };
      if (judgeFailed) this.deps.reportError("JUDGE_FAILED", `${turn.sessionId}:${turn.turn}: ${decision.reason} after ${attempts} attempt(s); no sample (never trained as neutral)`);
      return { sample: null, skipped: decision.reason, category: decision.category };
    }
    // (counted now, so that a turn of the session judged meanwhile sees it; taken back below if no sample is stored)
    const effective = METHOD_NEEDS[method].firstTurnGuarantee && !decision.masked;
    if (effective) ledger.markEffective(turn.sessionId);

    let teacher: TeacherOutcome | null = null;
    if (decision.teacher === "engine") {
      teacher = await this.scoreTeacher(turn, signals.hint!, record);
      if (!teacher.ok) {
        this.deps.reportError("JUDGE_FAILED", `${turn.sessionId}:${turn.turn}: teacher scoring rejected: ${teacher.reason}`);
        return { sample: null, skipped: `teacher scoring rejected: ${teacher.reason}`, category: "teacher-failed" };
      }
    }
    const built = buildSample({ turn, decision, teacher: teacher?.ok ? teacher.values : null, teacherTokens: teacher?.ok ? teacher.teacherTokens : null, evalScore, now: Date.now() });
    if (!built.ok) {
      if (effective) ledger.unmarkEffective(turn.sessionId);
      return { sample: null, skipped: built.reason, category: "invalid-turn" };
    }
    const stored = await storeSample(this.deps.sink, built.sample, this.deps.reportError);
    if (!stored.sample && effective) ledger.unmarkEffective(turn.sessionId);
    return stored;
  }

  /** The teacher's log-probs of the turn's response under the hinted prompt, noted in the record. */
  private async scoreTeacher(turn: ClosedTurn, hint: string, record: JudgementRecord): Promise<TeacherOutcome> {
    const teacher = this.deps.teacher;
    const outcome = await teacher.score({ messages: turn.messages, tools: turn.tools, templateKwargs: turn.templateKwargs, promptIds: turn.promptIds, responseIds: turn.responseIds }, hint);
    record.teacher = {
      ok: outcome.ok,
      reason: outcome.ok ? null : outcome.reason,
      promptLength: outcome.promptLength,
      logprobStartLen: outcome.logprobStartLen,
      topk: teacher.topk,
      promptReproduced: outcome.ok ? outcome.promptReproduced : null,
      temperature: outcome.temperature,
      scoring: outcome.scoring,
      requests: outcome.requests,
    };
    return outcome;
  }
}
