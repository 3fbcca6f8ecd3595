// evaluation.stop_if_worse's rule on fixed data: the paired difference and its t interval, "significantly below"
// (the interval wholly below 0 over at least MIN_PAIRS sessions), the best version (highest mean, the earliest of
// equal ones), the guard's comparison with the best *earlier* version, and the sentence every screen shows.
import { describe, expect, it } from "vitest";
import type { VersionMetrics } from "../../contracts/evaluation.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { bestVersion } from "../../orchestrator/evaluation/best-version.ts";
import { meanWithInterval, pairedDifference, pairedWinRate } from "../../orchestrator/evaluation/evaluation-statistics.ts";
import { dropMessage, HeldOutGuard, MIN_PAIRS, significantDrop } from "../../orchestrator/evaluation/held-out-guard.ts";
import { summarise } from "../../orchestrator/evaluation/version-evaluation.ts";

/** A version's metrics from its per-session scores (keys s0, s1, …), summarised as evaluations.jsonl holds them. */
function version(label: string, scores: Array<number | null>): VersionMetrics {
  const sessions = scores.map((score, index) => ({ openerId: `s${index}`, sample: 0, transcript: [], votes: [], score, failure: null }));
  return summarise(label, sessions, { policy: 0, simulator: 0, scorer: 0 }, null);
}

describe("the paired difference", () => {
  it("is the mean of per-session differences with the t interval of those differences, over sessions both scored", () => {
    const candidate = { a: 0.2, b: 0.5, c: 0.4, d: null, e: 0.9 };
    const best = { a: 0.6, b: 0.7, c: 0.5, d: 0.8 };
    const paired = pairedDifference(candidate, best)!;
    // a, b, c: −0.4, −0.2, −0.1 (d: candidate not scored; e: best has none)
    const expected = meanWithInterval([-0.4, -0.2, -0.1]);
    expect(paired.pairs).toBe(3);
    expect(paired.mean).toBeCloseTo(expected.mean!, 12);
    expect(paired.interval!.low).toBeCloseTo(expected.interval!.low, 12);
    expect(paired.interval!.high).toBeCloseTo(expected.interval!.high, 12);
    expect(pairedDifference({ a: null }, best)).toBeNull();
    // the win rate reads the same pairs
    expect(pairedWinRate(candidate, best)).toMatchObject({ rate: 0, pairs: 3 });
  });
});

describe("significantly below the best", () => {
  it("every session a third lower over 8 sessions: a drop, with the difference and its interval", () => {
    const best = version("3", [1, 1, 1, 1, 2 / 3, 2 / 3, 1, 1]);
    const worse = version("6", [2 / 3, 2 / 3, 2 / 3, 2 / 3, 1 / 3, 1 / 3, 2 / 3, 2 / 3]);
    const drop = significantDrop(worse, best)!;
    expect(drop).toMatchObject({ version: "6", bestVersion: "3", pairs: 8 });
    expect(drop.difference).toBeCloseTo(-1 / 3, 12);
    expect(drop.differenceCi.high).toBeLessThan(0);
    expect(drop.meanScore).toBe(worse.meanScore);
    expect(drop.bestScoreCi).toEqual(best.scoreCi);
  });

  it("a difference whose interval reaches 0 is not a drop, however low the mean", () => {
    // mean difference −0.25, but the sessions disagree: t(7)·sd/√8 > 0.25
    const best = version("3", [1, 1, 1, 1, 0, 0, 1, 1]);
    const noisy = version("6", [0, 0, 0, 1, 1, 1, 0, 1]);
    const paired = pairedDifference(noisy.perSession, best.perSession)!;
    expect(paired.mean).toBeLessThan(0);
    expect(paired.interval!.high).toBeGreaterThan(0);
    expect(significantDrop(noisy, best)).toBeNull();
  });

  it(`needs ${MIN_PAIRS} sessions both scored: 5 all worse is not enough (p ≥ 0.0625 by a sign test), 6 are`, () => {
    expect(MIN_PAIRS).toBe(6);
    const five = significantDrop(version("6", [0.5, 0.5, 0.5, 0.5, 0.5]), version("3", [1, 1, 1, 1, 1]));
    expect(five).toBeNull();
    const six = significantDrop(version("6", [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]), version("3", [1, 1, 1, 1, 1, 1]));
    expect(six).toMatchObject({ difference: -0.5, differenceCi: { low: -0.5, high: -0.5 }, pairs: 6 });
    // sessions the candidate did not score are not pairs
    expect(significantDrop(version("6", [0.5, 0.5, 0.5, 0.5, 0.5, null]), version("3", [1, 1, 1, 1, 1, 1]))).toBeNull();
  });

  it("a version that scored nothing, or one above the best, is no drop", () => {
    const best = version("3", [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);
    expect(significantDrop(version("6", [null, null, null, null, null, null]), best)).toBeNull();
    expect(significantDrop(version("6", [1, 1, 1, 1, 1, 1]), best)).toBeNull();
  });

  it("says it in one sentence: both scores with their intervals and the paired difference", () => {
    const drop = significantDrop(version("6", [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0]), version("3", [1, 1, 1, 1, 1, 1, 1, 0.5]))!;
    // both: sd √(0.21875/7) = 0.1768, half-width t(7)·sd/√8 = 2.365 × 0.0625 = 0.1478; v3's upper end clipped to 1
    expect(dropMessage(drop)).toBe(
      "held-out score of version 6 (43.8% [29.0%, 58.5%]) significantly below best version 3 (93.8% [79.0%, 100.0%]): " +
        "paired difference −50.0 points [−50.0, −50.0] over 8 sessions",
    );
  });
});

describe("the best version and the guard", () => {
  it("the best is the highest mean score, the earliest of equal ones; a version with nothing scored is never best", () => {
    const points = [
      { version: "0", meanScore: 0.5 },
      { version: "3", meanScore: 0.75 },
      { version: "6", meanScore: null },
      { version: "9", meanScore: 0.75 },
    ];
    expect(bestVersion(points)?.version).toBe("3");
    expect(bestVersion([{ version: "0", meanScore: null }])).toBeNull();
    expect(bestVersion([])).toBeNull();
  });

  it("compares each version with the best before it, not with the base or the last", () => {
    const guard = new HeldOutGuard();
    const base = version("0", [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);
    const trained = version("3", [1, 1, 1, 1, 1, 1, 1, 1]);
    const slightly = version("6", [1, 1, 1, 1, 1, 1, 1, 0.5]); // −1/16 on average, one session: not significant
    const fallen = version("9", [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]); // back to the base: below v3, not below v0
    expect(guard.check(base)).toBeNull(); // (nothing before the base)
    expect(guard.check(trained)).toBeNull();
    expect(guard.check(slightly)).toBeNull();
    expect(guard.check(fallen)).toMatchObject({ version: "9", bestVersion: "3", difference: -0.5 });
    expect(significantDrop(fallen, base)).toBeNull();
  });
});

describe("evaluation.stop_if_worse in the recipe", () => {
  const problems = (input: unknown) => {
    const parsed = recipeSchema.safeParse(input);
    return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  };

  it("is off by default; on, it needs continuous evaluation and a trainer behind the bridge, naming the key", () => {
    expect(recipeSchema.parse({}).evaluation.stop_if_worse).toBe(false);
    expect(problems({ evaluation: { every_versions: 4, stop_if_worse: true } })).toEqual([]);
    expect(problems({ evaluation: { stop_if_worse: true } })).toEqual([
      "evaluation.stop_if_worse: the guard compares the versions continuous evaluation scores: set evaluation.every_versions > 0, or stop_if_worse: false",
    ]);
    expect(problems({ evaluation: { every_versions: 4, stop_if_worse: true }, engine: { kind: "external", policy_url: "http://127.0.0.1:9" }, judge: { launch: "external", url: "http://127.0.0.1:9" }, sink: { kind: "jsonl", path: "samples.jsonl" } })).toEqual([
      "evaluation.stop_if_worse: with sink.kind jsonl no trainer takes batches from the bridge, so there is no training to pause: use sink.kind bridge, or stop_if_worse: false",
    ]);
  });
});
