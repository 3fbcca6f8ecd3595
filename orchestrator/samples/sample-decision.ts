// The decision table of binary / opd / combine: from the judged signals of one turn to "which sample, if any".
// Pure: no I/O, no teacher calls; the pipeline carries the decision out. The hybrid's rows are hybrid-dispatch.ts.
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { HybridDispatch } from "./hybrid-dispatch.ts";
import type { Method } from "../../contracts/recipe.ts";
import type { SkipCategory } from "../../contracts/events.ts";
import type { SampleKind } from "../../contracts/sample.ts";

/**
 * What each method asks of judging: evaluation votes, hint votes, a teacher scoring the response with the hint; and
 * whether a session's first judged turn is trained even at score 0 (binary's at-least-one guarantee). The hybrid's
 * teacher is the trainer's (its candidates carry token ids only), so judging runs no teacher for it.
 */
export const METHOD_NEEDS: Record<Method, { evaluation: boolean; hint: boolean; teacher: boolean; firstTurnGuarantee: boolean }> = {
  binary: { evaluation: true, hint: false, teacher: false, firstTurnGuarantee: true },
  opd: { evaluation: false, hint: true, teacher: true, firstTurnGuarantee: false },
  combine: { evaluation: true, hint: true, teacher: true, firstTurnGuarantee: false },
  hybrid: { evaluation: true, hint: true, teacher: false, firstTurnGuarantee: false },
};

export interface JudgedSignals {
  method: Method;
  hasNextState: boolean;
  /** The evaluation score (explicit feedback or majority of votes); null when none was asked for or none exists. */
  evalScore: number | null;
  evalSource: "explicit" | "votes" | null;
  /** Every evaluation vote failed (after retries): there is no evaluation. */
  evalFailed: boolean;
  /** e.g. "majority: +1×2 -1×1, 3 of 3 valid". */
  evalDetail: string;
  hint: string | null;
  hintSource: "explicit" | "votes" | null;
  hintFailed: boolean;
  /** Why no hint was kept (from the hint choice), when none was. */
  hintReason: string | null;
  /** binary: the session already has a sample with a non-zero loss mask. */
  sessionHasEffectiveSample: boolean;
  /** hybrid: its dispatch of every hint vote and the evaluation (dispatchHybrid). */
  hybridDispatch?: HybridDispatch;
}

export type TeacherNeed = "engine" | "rollout" | "none";

export type Decision =
  | { make: true; kind: SampleKind; reward: number; teacher: TeacherNeed; masked: boolean; promoted: boolean; why: string }
  | { make: false; reason: string; category: NoSampleCategory };

/** Why a judged turn made no sample, as counted in status. */
export type NoSampleCategory = Extract<SkipCategory, "judge-failed" | "no-next-state" | "no-hint" | "no-signal">;

export function decideSample(signals: JudgedSignals): Decision {
  switch (signals.method) {
    case "binary":
      return decideBinary(signals);
    case "opd":
      return decideOpd(signals);
    case "combine":
      return decideCombine(signals);
    case "hybrid":
      return decideHybrid(signals);
  }
}

/** The hybrid's sample is its dispatch's (every kept hint a candidate); no sample is told apart as the others are. */
function decideHybrid(signals: JudgedSignals): Decision {
  const dispatch = signals.hybridDispatch;
  if (!dispatch) throw new OpenclawRlError("INTERNAL", "method hybrid decides from its dispatch: call dispatchHybrid (orchestrator/samples/hybrid-dispatch.ts) first", { path: "method" });
  if (dispatch.make) return { make: true, kind: "hybrid", reward: dispatch.reward, teacher: "none", masked: false, promoted: false, why: dispatch.why };
  if (signals.evalFailed && signals.hintFailed) return { make: false, reason: "judge failed: every evaluation and hint vote failed", category: "judge-failed" };
  if (!signals.hasNextState && signals.evalSource !== "explicit" && signals.hintSource !== "explicit") {
    return { make: false, reason: "hybrid: no next state and no explicit feedback", category: "no-next-state" };
  }
  return { make: false, reason: dispatch.reason, category: dispatch.case === "evaluation-only" ? "no-hint" : "no-signal" };
}

function scoreText(score: number): string {
  return score > 0 ? `+${score}` : String(score);
}

function decideBinary(signals: JudgedSignals): Decision {
  if (signals.evalSource === "explicit" && signals.evalScore !== null) {
    return binaryFromScore(signals, signals.evalScore, `explicit feedback ${scoreText(signals.evalScore)}`);
  }
  if (signals.evalFailed) return { make: false, reason: "judge failed: every evaluation vote failed", category: "judge-failed" };
  if (!signals.hasNextState || signals.evalScore === null) {
    return { make: true, kind: "rl", reward: 0, teacher: "none", masked: true, promoted: false, why: "binary: no next state (loss mask 0)" };
  }
  return binaryFromScore(signals, signals.evalScore, `score ${scoreText(signals.evalScore)} (${signals.evalDetail})`);
}

function binaryFromScore(signals: JudgedSignals, score: number, detail: string): Decision {
  if (score !== 0) return { make: true, kind: "rl", reward: score, teacher: "none", masked: false, promoted: false, why: `binary: ${detail}` };
  if (!signals.sessionHasEffectiveSample) {
    return { make: true, kind: "rl", reward: 0, teacher: "none", masked: false, promoted: true, why: `binary: ${detail}, kept by the at-least-one guarantee (first judged turn of its session)` };
  }
  return { make: true, kind: "rl", reward: 0, teacher: "none", masked: true, promoted: false, why: `binary: ${detail} (loss mask 0)` };
}

function hintText(signals: JudgedSignals): string {
  return signals.hintSource === "explicit" ? "explicit hint" : "hint from the judge";
}

function decideOpd(signals: JudgedSignals): Decision {
  if (signals.hint !== null) return { make: true, kind: "opd", reward: 1, teacher: "engine", masked: false, promoted: false, why: `opd: ${hintText(signals)}` };
  if (signals.hintFailed) return { make: false, reason: "judge failed: every hint vote failed", category: "judge-failed" };
  if (!signals.hasNextState) return { make: false, reason: "opd: no next state and no explicit hint", category: "no-next-state" };
  return { make: false, reason: `opd: ${signals.hintReason ?? "no hint"}`, category: "no-hint" };
}

/**
 * One failed vote set leaves the other's signal as it is, as in the reference: failed evaluation votes count as no
 * evaluation (a hint still makes a reward-0 sample), failed hint votes as no hint (an evaluation of ±1 still makes a
 * rollout-teacher sample). Only when both fail is there nothing to train on.
 */
function decideCombine(signals: JudgedSignals): Decision {
  if (signals.evalFailed && signals.hintFailed) return { make: false, reason: "judge failed: every evaluation and hint vote failed", category: "judge-failed" };
  const failedNote = signals.evalFailed ? " (every evaluation vote failed)" : signals.hintFailed ? " (every hint vote failed)" : "";
  const decision = decideCombineFrom(signals);
  return decision.make ? { ...decision, why: decision.why + failedNote } : { ...decision, reason: decision.reason + failedNote };
}

function decideCombineFrom(signals: JudgedSignals): Decision {
  const rl = signals.evalScore === 1 || signals.evalScore === -1 ? signals.evalScore : null;
  const evalText = signals.evalSource === "explicit" ? "explicit feedback" : "evaluation";
  if (signals.hint !== null && rl !== null) {
    return { make: true, kind: "combined", reward: rl, teacher: "engine", masked: false, promoted: false, why: `combine: ${hintText(signals)} + ${evalText} ${scoreText(rl)}` };
  }
  if (signals.hint !== null) {
    return { make: true, kind: "combined", reward: 0, teacher: "engine", masked: false, promoted: false, why: `combine: ${hintText(signals)}, ${evalText} ${signals.evalScore === null ? "none" : scoreText(signals.evalScore)} → reward 0` };
  }
  if (rl !== null) {
    return { make: true, kind: "combined", reward: rl, teacher: "rollout", masked: false, promoted: false, why: `combine: ${evalText} ${scoreText(rl)}, no hint → teacher = rollout log-probs` };
  }
  if (!signals.hasNextState && signals.evalSource !== "explicit" && signals.hintSource !== "explicit") {
    return { make: false, reason: "combine: no next state and no explicit feedback", category: "no-next-state" };
  }
  return { make: false, reason: `combine: no hint (${signals.hintReason ?? "none"}) and ${evalText} ${signals.evalScore === null ? "none" : scoreText(signals.evalScore)}`, category: "no-signal" };
}
