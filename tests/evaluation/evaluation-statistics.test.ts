// The held-out evaluation's statistics on fixed data: the t interval, Wilson's interval, the paired win rate, pass@k,
// and the version summary's pairing by (opener, sample).
import { describe, expect, it } from "vitest";
import { meanWithInterval, pairedWinRate, passAtK, tQuantile95, wilsonInterval } from "../../orchestrator/evaluation/evaluation-statistics.ts";
import { summarise } from "../../orchestrator/evaluation/version-evaluation.ts";
import type { SessionResult } from "../../contracts/evaluation.ts";

describe("evaluation statistics", () => {
  it("a mean's 95% t interval matches the textbook value", () => {
    // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample sd √(32/7), t(7) = 2.365 → half-width 2.365·√(32/7)/√8 = 1.7875
    const { mean, interval } = meanWithInterval([2, 4, 4, 4, 5, 5, 7, 9]);
    expect(mean).toBe(5);
    expect(interval!.low).toBeCloseTo(5 - 1.7875, 3);
    expect(interval!.high).toBeCloseTo(5 + 1.7875, 3);
    expect(meanWithInterval([0.4])).toEqual({ mean: 0.4, interval: null });
    expect(meanWithInterval([])).toEqual({ mean: null, interval: null });
    expect(tQuantile95(1)).toBe(12.706);
    expect(tQuantile95(120)).toBeCloseTo(1.98, 2); // (t(120) = 1.980)
  });

  it("Wilson's interval: 8 of 10 is [0.490, 0.943]; 0 of 10 starts at 0; none without trials", () => {
    const interval = wilsonInterval(8, 10)!;
    expect(interval.low).toBeCloseTo(0.4902, 3);
    expect(interval.high).toBeCloseTo(0.9433, 3);
    expect(wilsonInterval(0, 10)!.low).toBe(0);
    expect(wilsonInterval(0, 10)!.high).toBeCloseTo(0.2775, 3);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it("the paired win rate counts wins, ties as half, only on keys both scored", () => {
    const candidate = { a: 1, b: 0.5, c: 0.2, d: 0.9, e: null };
    const base = { a: 0.5, b: 0.5, c: 0.4, d: 0.1, e: 0.3, f: 0.2 };
    const paired = pairedWinRate(candidate, base)!;
    expect(paired.pairs).toBe(4); // a, b, c, d (e has no candidate score, f no candidate)
    expect(paired.rate).toBeCloseTo((1 + 0.5 + 0 + 1) / 4, 10);
    expect(paired.interval.low).toBeLessThan(paired.rate);
    expect(paired.interval.high).toBeGreaterThan(paired.rate);
    expect(pairedWinRate({ a: 1 }, { b: 1 })).toBeNull();
  });

  it("pass@k is Chen et al.'s unbiased estimate", () => {
    expect(passAtK(10, 0, 1)).toBe(0);
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 10);
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - (7 * 6 * 5 * 4 * 3) / (10 * 9 * 8 * 7 * 6), 10); // 1 − C(7,5)/C(10,5)
    expect(passAtK(4, 2, 3)).toBe(1);
    expect(() => passAtK(2, 1, 3)).toThrow(/at least 3 samples/);
  });

  it("a version's summary pairs against the base by opener and sample", () => {
    const session = (openerId: string, sample: number, score: number | null): SessionResult => ({ openerId, sample, transcript: [], votes: [], score, failure: score === null ? "x" : null });
    const requests = { policy: 0, simulator: 0, scorer: 0 };
    const base = summarise("0", [session("a", 0, 0.5), session("a", 1, 0.7), session("b", 0, 0.2), session("b", 1, null)], requests, null);
    expect(base.scored).toBe(3);
    expect(base.meanScore).toBeCloseTo((0.5 + 0.7 + 0.2) / 3, 10);
    expect(base.winRate).toBeNull();
    const later = summarise("4", [session("a", 0, 0.9), session("a", 1, 0.7), session("b", 0, 0.1), session("b", 1, 1)], requests, base);
    expect(later.baseVersion).toBe("0");
    expect(later.winRate).toBeCloseTo((1 + 0.5 + 0) / 3, 10); // b#1 unpaired (the base's failed)
  });
});
