// The paper's measure: the first session starting 3 satisfied first replies in a row, capped at 72; and over seeds.
import { describe, expect, it } from "vitest";
import { formatSessionsUntil, sessionsUntilOverSeeds, sessionsUntilPreference, sessionsUntilSettled } from "../../orchestrator/evaluation/sessions-until.ts";

const verdicts = (text: string) => [...text].map((mark) => mark === "y");

describe("sessionsUntilPreference", () => {
  it("is the 1-based session that starts the first run of three satisfied sessions", () => {
    expect(sessionsUntilPreference(verdicts("yyy"))).toEqual({ sessions: 1, reached: true });
    expect(sessionsUntilPreference(verdicts("nyyy"))).toEqual({ sessions: 2, reached: true });
    expect(sessionsUntilPreference(verdicts("yynyynyyyy"))).toEqual({ sessions: 7, reached: true });
    // a run of two, broken, does not count; the later run does
    expect(sessionsUntilPreference(verdicts("nnyynyyyyy"))).toEqual({ sessions: 6, reached: true });
  });

  it("is the cap when no run of three shows within it, and ignores sessions past it", () => {
    expect(sessionsUntilPreference(verdicts("ynyynyyn"))).toEqual({ sessions: 72, reached: false });
    expect(sessionsUntilPreference([])).toEqual({ sessions: 72, reached: false });
    const late = [...Array(70).fill(false), true, true, true];
    expect(sessionsUntilPreference(late)).toEqual({ sessions: 72, reached: false }); // sessions 71–73: the third is past 72
    expect(sessionsUntilPreference(late.slice(1))).toEqual({ sessions: 70, reached: true }); // sessions 70–72
    expect(sessionsUntilPreference(verdicts("nnnnn"), { cap: 4 })).toEqual({ sessions: 4, reached: false });
    expect(sessionsUntilPreference(verdicts("nyy"), { streak: 2, cap: 10 })).toEqual({ sessions: 2, reached: true });
  });

  it("refuses a streak or cap that cannot count", () => {
    expect(() => sessionsUntilPreference([], { streak: 0 })).toThrow(/streak/);
    expect(() => sessionsUntilPreference([], { cap: 2 })).toThrow(/cap/);
  });

  it("is settled once the streak shows or the cap is played", () => {
    expect(sessionsUntilSettled(verdicts("nyy"))).toBe(false);
    expect(sessionsUntilSettled(verdicts("nyyy"))).toBe(true);
    expect(sessionsUntilSettled(Array(72).fill(false))).toBe(true);
  });
});

describe("sessionsUntilOverSeeds", () => {
  it("gives the mean, the sample standard deviation and the capped seeds", () => {
    const summary = sessionsUntilOverSeeds([
      { sessions: 8, reached: true },
      { sessions: 12, reached: true },
      { sessions: 72, reached: false },
    ]);
    expect(summary.mean).toBeCloseTo(30.667, 3);
    expect(summary.spread).toBeCloseTo(Math.sqrt(((8 - 92 / 3) ** 2 + (12 - 92 / 3) ** 2 + (72 - 92 / 3) ** 2) / 2), 9);
    expect([summary.min, summary.max, summary.capped, summary.seeds]).toEqual([8, 72, 1, 3]);
    expect(summary.interval!.low).toBeLessThan(summary.mean);
    expect(formatSessionsUntil(summary)).toBe("30.7 ± 35.9 (1 of 3 capped)");
  });

  it("has no spread for one seed, and refuses none", () => {
    const one = sessionsUntilOverSeeds([{ sessions: 5, reached: true }]);
    expect([one.spread, one.interval]).toEqual([null, null]);
    expect(formatSessionsUntil(one)).toBe("5");
    expect(() => sessionsUntilOverSeeds([])).toThrow(/no seeds/);
  });
});
