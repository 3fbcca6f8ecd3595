// The hybrid's dispatch table: from one turn's hint votes and evaluation score to its case, reward and hint
// candidates. Pure: no prompts, no tokens, no judge calls; the judge pipeline asks the votes, hybrid-sample.ts builds.
import { stripPython } from "../../lib/model/python-strip.ts";

/** One hint-judge vote as the judge parsed it: its decision (null when it failed or had none) and its hint text. */
export interface HintVote {
  score: number | null;
  hint: string;
}

export interface HybridSettings {
  /** hybrid.min_hint_chars: a hint is kept only when longer than this (characters after trimming). */
  minHintChars: number;
  /** hybrid.max_candidates. */
  maxCandidates: number;
  /** hybrid.fallback_to_unenhanced: an evaluation-only turn trains, with the un-enhanced prompt as its one candidate. */
  fallbackToUnenhanced: boolean;
}

/** The four rows of the table: which of the two signals the turn has. */
export type HybridCase = "hint-and-evaluation" | "hint-only" | "evaluation-only" | "neither";

export type HybridDispatch =
  | {
      make: true;
      case: Exclude<HybridCase, "neither">;
      /** The GRPO reward: the evaluation's ±1, or 0 with hints only. */
      reward: number;
      /** The kept hints, shortest first: one candidate each. Empty in the evaluation-only case, whose one candidate is the un-enhanced prompt. */
      hints: string[];
      why: string;
    }
  | { make: false; case: "evaluation-only" | "neither"; reason: string };

/**
 * The hints that become candidates: votes that said 1 with a trimmed hint longer than `minChars` characters (code
 * points, as Python counts), each text once (its first vote's place), sorted shortest first (a stable sort keeps the
 * votes' order among equal lengths), at most `maxCandidates`.
 */
export function keptHints(votes: readonly HintVote[], minChars: number, maxCandidates: number): string[] {
  const kept: string[] = [];
  const seen = new Set<string>();
  for (const vote of votes) {
    if (vote.score !== 1) continue;
    const hint = stripPython(vote.hint, null, "both");
    if (Array.from(hint).length <= minChars || seen.has(hint)) continue;
    seen.add(hint);
    kept.push(hint);
  }
  return kept.sort((left, right) => Array.from(left).length - Array.from(right).length).slice(0, maxCandidates);
}

/**
 * The table. `evalScore` is the evaluation votes' majority (a tie or no valid vote: 0), null when there is none; only
 * ±1 counts as an evaluation. Hints and evaluation → reward = evaluation, the hinted prompts; hints only → reward 0;
 * evaluation only → the un-enhanced prompt (no sample with hybrid.fallback_to_unenhanced false: the trainer takes a
 * hybrid batch only when every sample carries a candidate); neither → no sample.
 */
export function dispatchHybrid(hintVotes: readonly HintVote[], evalScore: number | null, settings: HybridSettings): HybridDispatch {
  const hints = keptHints(hintVotes, settings.minHintChars, settings.maxCandidates);
  const evaluation = evalScore === 1 || evalScore === -1 ? evalScore : null;
  const hintText = `${hints.length} hint${hints.length === 1 ? "" : "s"} of ${hintVotes.length} votes`;
  if (hints.length > 0 && evaluation !== null) {
    return { make: true, case: "hint-and-evaluation", reward: evaluation, hints, why: `hybrid: ${hintText} + evaluation ${signed(evaluation)}` };
  }
  if (hints.length > 0) {
    return { make: true, case: "hint-only", reward: 0, hints, why: `hybrid: ${hintText}, evaluation ${evalText(evalScore)} → reward 0` };
  }
  if (evaluation !== null && settings.fallbackToUnenhanced) {
    return { make: true, case: "evaluation-only", reward: evaluation, hints: [], why: `hybrid: evaluation ${signed(evaluation)}, no hint kept → the un-enhanced prompt as its one candidate` };
  }
  if (evaluation !== null) {
    return { make: false, case: "evaluation-only", reason: `hybrid: evaluation ${signed(evaluation)} but no hint kept (of ${hintVotes.length} votes), and hybrid.fallback_to_unenhanced is false` };
  }
  return { make: false, case: "neither", reason: `hybrid: no hint kept (of ${hintVotes.length} votes) and evaluation ${evalText(evalScore)}` };
}

function signed(score: number): string {
  return score > 0 ? `+${score}` : String(score);
}

function evalText(score: number | null): string {
  return score === null ? "none" : signed(score);
}
