// Counters of judging for status and metrics: turns judged, votes failed, rewards by sign, hints kept or not,
// samples by kind, skipped turns by reason, the last evaluation score and the per-sample eval scores of recent samples.
import type { SkipCategory } from "../../contracts/events.ts";
import type { SampleKind } from "../../contracts/sample.ts";

export interface JudgeStats {
  turnsJudged: number;
  votes: number;
  votesFailed: number;
  judgeFailures: number;
  rewards: { positive: number; zero: number; negative: number };
  hints: { accepted: number; rejected: number };
  samples: Record<SampleKind, number>;
  masked: number;
  skipped: Partial<Record<SkipCategory, number>>;
  lastEvalScore: number | null;
  pending: number;
}

const EVAL_SCORES_KEPT = 8192;

export class JudgeCounters {
  private readonly counts: Omit<JudgeStats, "pending"> = {
    turnsJudged: 0,
    votes: 0,
    votesFailed: 0,
    judgeFailures: 0,
    rewards: { positive: 0, zero: 0, negative: 0 },
    hints: { accepted: 0, rejected: 0 },
    samples: { rl: 0, opd: 0, combined: 0 },
    masked: 0,
    skipped: {},
    lastEvalScore: null,
  };
  private readonly evalScores = new Map<string, number | null>();

  vote(ok: boolean): void {
    this.counts.votes += 1;
    if (!ok) this.counts.votesFailed += 1;
  }

  judged(evalScore: number | null, judgeFailed: boolean): void {
    this.counts.turnsJudged += 1;
    if (judgeFailed) this.counts.judgeFailures += 1;
    if (evalScore !== null) this.counts.lastEvalScore = evalScore;
  }

  hint(accepted: boolean): void {
    if (accepted) this.counts.hints.accepted += 1;
    else this.counts.hints.rejected += 1;
  }

  sample(id: string, kind: SampleKind, reward: number, masked: boolean, evalScore: number | null): void {
    this.counts.samples[kind] += 1;
    if (masked) this.counts.masked += 1;
    if (reward > 0) this.counts.rewards.positive += 1;
    else if (reward < 0) this.counts.rewards.negative += 1;
    else this.counts.rewards.zero += 1;
    this.evalScores.set(id, evalScore);
    if (this.evalScores.size > EVAL_SCORES_KEPT) this.evalScores.delete(this.evalScores.keys().next().value as string);
  }

  skipped(category: SkipCategory): void {
    this.counts.skipped[category] = (this.counts.skipped[category] ?? 0) + 1;
  }

  /** Mean evaluation score of the given samples (rollout/prm_eval_score); null when none of them has one. */
  evalScoreOfBatch(sampleIds: readonly string[]): number | null {
    const scores = sampleIds.map((id) => this.evalScores.get(id)).filter((score): score is number => typeof score === "number");
    return scores.length === 0 ? null : scores.reduce((sum, score) => sum + score, 0) / scores.length;
  }

  snapshot(pending: number): JudgeStats {
    return structuredClone({ ...this.counts, pending });
  }
}
