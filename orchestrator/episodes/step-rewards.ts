// The general-agent track's rewards, as the reference computes them (../shared/reference/upstream-and-peers.md
// part (b)): the outcome o = 2·score − 1 of an episode, each step's reward r_t = o + prm_step_coef · p_t (p_t the
// mean of the judge's valid votes on the step, 0 where there is none), and step-wise standardisation within
// (task group, step index) buckets. Pure arithmetic; no I/O.

export interface EpisodeStep {
  /** The episode's task group (the GRPO group: the same task, samples_per_task episodes). */
  groupId: string;
  episodeId: string;
  stepIndex: number;
  /** Mean of the judge's valid ±1 votes on this step, or null when it has none. */
  stepScore: number | null;
  /** The episode's outcome in [−1, 1]. */
  outcome: number;
}

export interface StepAdvantage extends EpisodeStep {
  /** r_t = o + prm_step_coef · p_t. */
  reward: number;
  /** The standardised reward; 0 where the step's bucket is constant (its loss mask is then 0). */
  advantage: number;
  /** False for a step whose bucket is constant: it contributes nothing to the loss. */
  trained: boolean;
}

/** An environment's score in [0, 1] as an outcome in [−1, 1]. */
export function outcomeOf(score: number): number {
  if (!Number.isFinite(score) || score < 0 || score > 1) throw new RangeError(`an episode's score must be in [0, 1], got ${score}`);
  return 2 * score - 1;
}

/** The mean of the valid votes (±1, and 0 for "cannot tell"), or null when no vote was valid. */
export function stepScoreOf(votes: readonly (number | null)[]): number | null {
  const valid = votes.filter((vote): vote is number => vote !== null && Number.isFinite(vote));
  return valid.length === 0 ? null : valid.reduce((sum, vote) => sum + vote, 0) / valid.length;
}

/** Variance at or below this counts as a constant bucket (the reference's threshold). */
const CONSTANT_VARIANCE = 1e-12;

/**
 * Each step's reward and advantage: rewards standardised within their (group, step index) bucket by the bucket's
 * mean and population standard deviation, (r − μ) / (σ + 1e−6); a bucket of one step keeps its raw reward; a bucket
 * whose rewards are all equal (variance ≤ 1e−12) contributes nothing.
 */
export function stepAdvantages(steps: readonly EpisodeStep[], prmStepCoef: number): StepAdvantage[] {
  const rewards = steps.map((step) => step.outcome + prmStepCoef * (step.stepScore ?? 0));
  const buckets = new Map<string, number[]>();
  steps.forEach((step, index) => {
    const key = JSON.stringify([step.groupId, step.stepIndex]);
    const bucket = buckets.get(key);
    if (bucket) bucket.push(index);
    else buckets.set(key, [index]);
  });
  const advantages = new Array<number>(steps.length).fill(0);
  const trained = new Array<boolean>(steps.length).fill(true);
  for (const members of buckets.values()) {
    if (members.length === 1) {
      advantages[members[0]!] = rewards[members[0]!]!;
      continue;
    }
    const values = members.map((index) => rewards[index]!);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    const variance = Math.max(0, values.reduce((sum, value) => sum + value * value, 0) / values.length - mean * mean);
    const std = Math.sqrt(variance);
    for (const index of members) {
      if (variance <= CONSTANT_VARIANCE) trained[index] = false;
      else advantages[index] = (rewards[index]! - mean) / (std + 1e-6);
    }
  }
  return steps.map((step, index) => ({ ...step, reward: rewards[index]!, advantage: advantages[index]!, trained: trained[index]! }));
}
