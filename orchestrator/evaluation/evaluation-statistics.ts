// The held-out evaluation's statistics: a mean with its 95% Student-t interval, a proportion with its Wilson interval,
// the paired win rate and the paired mean difference of one version against another on the same openers, and pass@k. Pure arithmetic on fixed data.
import type { Interval } from "../../contracts/evaluation.ts";

/** Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom (beyond: the normal 1.96, within 2%). */
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];
const Z95 = 1.959964;

export function tQuantile95(degreesOfFreedom: number): number {
  if (degreesOfFreedom < 1) return Number.POSITIVE_INFINITY;
  return degreesOfFreedom <= T95.length ? T95[degreesOfFreedom - 1]! : Z95 + 2.4 / degreesOfFreedom; // (2.4/df: the 1/df term of t's expansion)
}

/** Mean and its 95% t interval; null interval for fewer than two values. */
export function meanWithInterval(values: readonly number[]): { mean: number | null; interval: Interval | null } {
  if (values.length === 0) return { mean: null, interval: null };
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  if (values.length < 2) return { mean, interval: null };
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
  const half = tQuantile95(values.length - 1) * Math.sqrt(variance / values.length);
  return { mean, interval: { low: mean - half, high: mean + half } };
}

/** Wilson's 95% interval of a proportion `successes / trials` (null for no trials). */
export function wilsonInterval(successes: number, trials: number): Interval | null {
  if (trials <= 0) return null;
  const p = successes / trials;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (Z95 / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** The sessions (keys) both versions scored, as (candidate's score, base's score) pairs: what every paired statistic reads. */
export function scoredPairs(candidate: Record<string, number | null>, base: Record<string, number | null>): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (const [key, score] of Object.entries(candidate)) {
    const other = base[key];
    if (score !== null && other !== null && other !== undefined) pairs.push([score, other]);
  }
  return pairs;
}

/**
 * The win rate of `candidate` over `base` on the keys both scored (the same openers: paired): wins + ties/2 over
 * pairs, with a Wilson interval over the pairs (ties counted as half a win); null when no key is shared.
 */
export function pairedWinRate(candidate: Record<string, number | null>, base: Record<string, number | null>): { rate: number; interval: Interval; pairs: number } | null {
  const pairs = scoredPairs(candidate, base);
  if (pairs.length === 0) return null;
  const wins = pairs.reduce((sum, [score, other]) => sum + (score > other ? 1 : score === other ? 0.5 : 0), 0);
  return { rate: wins / pairs.length, interval: wilsonInterval(wins, pairs.length)!, pairs: pairs.length };
}

/**
 * The mean paired difference `candidate − base` over the keys both scored, with the 95% t interval of that mean
 * (meanWithInterval of the differences); null interval for fewer than two pairs, null for none.
 */
export function pairedDifference(candidate: Record<string, number | null>, base: Record<string, number | null>): { mean: number; interval: Interval | null; pairs: number } | null {
  const differences = scoredPairs(candidate, base).map(([score, other]) => score - other);
  if (differences.length === 0) return null;
  const { mean, interval } = meanWithInterval(differences);
  return { mean: mean!, interval, pairs: differences.length };
}

/** The unbiased pass@k of a task with `correct` of `samples` passing (Chen et al. 2021): 1 − C(n−c, k) / C(n, k). */
export function passAtK(samples: number, correct: number, k: number): number {
  if (k > samples) throw new RangeError(`pass@${k} needs at least ${k} samples (got ${samples})`);
  if (samples - correct < k) return 1;
  let failAll = 1;
  for (let index = samples - correct + 1; index <= samples; index += 1) failAll *= 1 - k / index;
  return 1 - failAll;
}
