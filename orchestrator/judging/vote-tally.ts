// Turns votes into decisions: the majority of valid evaluation votes (tie or none → 0) and the kept hint
// (the longest one above the minimum length among positive hint votes). Pure; no I/O.
import { characterCount } from "./judge-answer.ts";

export interface Vote {
  index: number;
  /** The parsed decision; null when the vote failed or its answer could not be parsed (no vote). */
  score: number | null;
  hint: string;
  /** The judge's raw answer ("" when the call failed). */
  raw: string;
  /** Why this vote counts as no vote: the call's error or the parse problem. */
  error: string | null;
  /** True when the call itself failed (timeout, 5xx, unreachable), false when it answered. */
  callFailed: boolean;
  attempts: number;
  ms: number;
}

export interface EvalTally {
  /** Majority of the valid votes; 0 on a tie or when none is valid. */
  score: number;
  valid: number;
  failed: number;
  /** Every vote failed or was unparseable: there is no decision at all (never trained as 0). */
  allFailed: boolean;
  /** Two or more scores share the top count. */
  tie: boolean;
  counts: Record<string, number>;
}

export function tallyEvalVotes(votes: readonly Vote[]): EvalTally {
  const counts = new Map<number, number>();
  for (const vote of votes) if (vote.score !== null) counts.set(vote.score, (counts.get(vote.score) ?? 0) + 1);
  const valid = [...counts.values()].reduce((sum, count) => sum + count, 0);
  const failed = votes.length - valid;
  const countsRecord = Object.fromEntries([...counts.entries()].map(([score, count]) => [String(score), count]));
  if (valid === 0) return { score: 0, valid, failed, allFailed: votes.length > 0, tie: false, counts: countsRecord };
  const top = Math.max(...counts.values());
  const leaders = [...counts.entries()].filter(([, count]) => count === top);
  const score = leaders.length === 1 ? leaders[0]![0] : 0;
  return { score, valid, failed, allFailed: false, tie: leaders.length > 1, counts: countsRecord };
}

/** "majority: +1×2 -1×1, 3 of 3 valid" / "tie: +1×1 -1×1, 2 of 3 valid". */
export function describeTally(tally: EvalTally, total: number): string {
  const counts = Object.entries(tally.counts)
    .sort((a, b) => Number(b[0]) - Number(a[0]))
    .map(([score, count]) => `${Number(score) > 0 ? "+" : ""}${score}×${count}`)
    .join(" ");
  return `${tally.tie ? "tie" : "majority"}: ${counts || "none"}, ${tally.valid} of ${total} valid`;
}

export interface HintChoice {
  /** The kept hint, or null. */
  hint: string | null;
  /** Index of the vote it came from. */
  fromVote: number | null;
  positive: number;
  failed: number;
  allFailed: boolean;
  /** Why no hint was kept, when none was. */
  reason: string | null;
}

/** The longest hint with more than `minChars` characters among votes that said \boxed{1}; the first on a tie. */
export function chooseHint(votes: readonly Vote[], minChars: number): HintChoice {
  const failed = votes.filter((vote) => vote.score === null).length;
  const positive = votes.filter((vote) => vote.score === 1);
  let best: Vote | null = null;
  for (const vote of positive) {
    const length = characterCount(vote.hint);
    if (length <= minChars) continue;
    if (best === null || length > characterCount(best.hint)) best = vote;
  }
  const allFailed = votes.length > 0 && failed === votes.length;
  if (best) return { hint: best.hint, fromVote: best.index, positive: positive.length, failed, allFailed, reason: null };
  const reason = allFailed
    ? "every hint vote failed"
    : positive.length === 0
      ? "no vote found a hint (no \\boxed{1})"
      : `no positive vote carried a hint longer than ${minChars} characters`;
  return { hint: null, fromVote: null, positive: positive.length, failed, allFailed, reason };
}
