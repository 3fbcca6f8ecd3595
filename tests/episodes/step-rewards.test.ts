// The general-agent track's reward arithmetic against numbers worked by hand: outcome 2·score − 1, step reward
// o + c·p_t, and the (group, step index) buckets (population std, single-entry buckets raw, constant buckets out).
import { describe, expect, it } from "vitest";
import { outcomeOf, stepAdvantages, stepScoreOf, type EpisodeStep } from "../../orchestrator/episodes/step-rewards.ts";

const step = (groupId: string, episodeId: string, stepIndex: number, stepScore: number | null, outcome: number): EpisodeStep => ({ groupId, episodeId, stepIndex, stepScore, outcome });

describe("step rewards", () => {
  it("outcome 2·score − 1; a score outside [0, 1] is refused by name", () => {
    expect([0, 0.25, 1].map(outcomeOf)).toEqual([-1, -0.5, 1]);
    expect(() => outcomeOf(1.5)).toThrow(/score must be in \[0, 1\], got 1\.5/);
    expect(() => outcomeOf(Number.NaN)).toThrow(/got NaN/);
  });

  it("step score: the mean of the valid votes, null when none is valid", () => {
    expect(stepScoreOf([1, -1, 1])).toBeCloseTo(1 / 3, 12);
    expect(stepScoreOf([1, null, 0])).toBe(0.5);
    expect(stepScoreOf([null, null])).toBeNull();
  });

  it("standardises within (group, step) buckets by the population std; raw value for a bucket of one; constant buckets out", () => {
    const steps = [
      // group g1, two episodes: step 0 rewards 1 + 0.5·1 = 1.5 and −1 + 0.5·(−1) = −1.5; step 1 only in e1
      step("g1", "e1", 0, 1, 1),
      step("g1", "e2", 0, -1, -1),
      step("g1", "e1", 1, null, 1),
      // group g2: step 0 the same reward twice (constant bucket)
      step("g2", "e3", 0, 1, 1),
      step("g2", "e4", 0, 1, 1),
    ];
    const out = stepAdvantages(steps, 0.5);
    expect(out.map((entry) => entry.reward)).toEqual([1.5, -1.5, 1, 1.5, 1.5]);
    // bucket (g1, 0): mean 0, population std 1.5 → ±1.5 / (1.5 + 1e-6)
    expect(out[0]!.advantage).toBeCloseTo(1.5 / (1.5 + 1e-6), 12);
    expect(out[1]!.advantage).toBeCloseTo(-1.5 / (1.5 + 1e-6), 12);
    expect(out[2]).toMatchObject({ advantage: 1, trained: true }); // alone in (g1, 1): its raw reward
    expect(out.slice(3).map((entry) => [entry.advantage, entry.trained])).toEqual([[0, false], [0, false]]);
  });

  it("three episodes of unequal rewards: (r − μ) / (σ + 1e−6) with σ² = E[r²] − μ²", () => {
    const out = stepAdvantages([step("g", "a", 2, null, 1), step("g", "b", 2, null, -1), step("g", "c", 2, null, 0)], 0.3);
    const sigma = Math.sqrt(2 / 3);
    expect(out.map((entry) => entry.advantage)).toEqual([1 / (sigma + 1e-6), -1 / (sigma + 1e-6), 0].map((value) => expect.closeTo(value, 12)));
  });
});
