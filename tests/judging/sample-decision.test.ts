// The decision table: binary (majority, masks, at-least-one guarantee, explicit scores), opd (hint or nothing)
// and combine (the four branches), plus judge failures that must never become a neutral sample.
import { describe, expect, it } from "vitest";
import { decideSample, METHOD_NEEDS, type JudgedSignals } from "../../orchestrator/samples/sample-decision.ts";

function signals(overrides: Partial<JudgedSignals>): JudgedSignals {
  return {
    method: "binary",
    hasNextState: true,
    evalScore: null,
    evalSource: null,
    evalFailed: false,
    evalDetail: "2 of 3 votes, 3 valid",
    hint: null,
    hintSource: null,
    hintFailed: false,
    hintReason: null,
    sessionHasEffectiveSample: true,
    ...overrides,
  };
}

describe("binary", () => {
  it("±1 → reward, mask 1", () => {
    expect(decideSample(signals({ evalScore: 1, evalSource: "votes" }))).toMatchObject({ make: true, kind: "rl", reward: 1, masked: false, teacher: "none" });
    expect(decideSample(signals({ evalScore: -1, evalSource: "votes" }))).toMatchObject({ make: true, reward: -1, masked: false });
  });
  it("0 → mask 0, unless the session has no effective sample yet (at-least-one guarantee)", () => {
    expect(decideSample(signals({ evalScore: 0, evalSource: "votes" }))).toMatchObject({ make: true, reward: 0, masked: true, promoted: false });
    expect(decideSample(signals({ evalScore: 0, evalSource: "votes", sessionHasEffectiveSample: false }))).toMatchObject({ make: true, reward: 0, masked: false, promoted: true, why: expect.stringContaining("at-least-one") });
  });
  it("no next state → masked sample, never promoted", () => {
    expect(decideSample(signals({ hasNextState: false, sessionHasEffectiveSample: false }))).toMatchObject({ make: true, reward: 0, masked: true, promoted: false });
  });
  it("all votes failed → no sample (never a neutral one)", () => {
    expect(decideSample(signals({ evalFailed: true, sessionHasEffectiveSample: false }))).toMatchObject({ make: false, category: "judge-failed" });
  });
  it("explicit feedback scores directly", () => {
    expect(decideSample(signals({ evalScore: -1, evalSource: "explicit", hasNextState: false }))).toMatchObject({ make: true, reward: -1, masked: false, why: "binary: explicit feedback -1" });
  });
});

describe("opd", () => {
  it("hint → opd sample with engine teacher; no hint → none, with the reason", () => {
    expect(decideSample(signals({ method: "opd", hint: "Use metric units.", hintSource: "votes" }))).toMatchObject({ make: true, kind: "opd", teacher: "engine", reward: 1 });
    expect(decideSample(signals({ method: "opd", hintReason: "no vote found a hint (no \\boxed{1})" }))).toMatchObject({ make: false, category: "no-hint", reason: expect.stringContaining("no vote found a hint") });
    expect(decideSample(signals({ method: "opd", hintFailed: true }))).toMatchObject({ make: false, category: "judge-failed" });
    expect(decideSample(signals({ method: "opd", hasNextState: false }))).toMatchObject({ make: false, reason: expect.stringContaining("no next state") });
    expect(decideSample(signals({ method: "opd", hasNextState: false, hint: "explicit one", hintSource: "explicit" }))).toMatchObject({ make: true, why: "opd: explicit hint" });
  });
});

describe("combine: at most one sample per turn", () => {
  const hint = { hint: "Use metric units.", hintSource: "votes" as const };
  it.each([
    [{ ...hint, evalScore: 1, evalSource: "votes" as const }, { kind: "combined", reward: 1, teacher: "engine" }],
    [{ ...hint, evalScore: -1, evalSource: "votes" as const }, { kind: "combined", reward: -1, teacher: "engine" }],
    [{ ...hint, evalScore: 0, evalSource: "votes" as const }, { kind: "combined", reward: 0, teacher: "engine" }],
    [{ evalScore: 1, evalSource: "votes" as const }, { kind: "combined", reward: 1, teacher: "rollout" }],
    [{ evalScore: -1, evalSource: "explicit" as const }, { kind: "combined", reward: -1, teacher: "rollout" }],
  ])("%j → %j", (input, expected) => {
    expect(decideSample(signals({ method: "combine", ...input }))).toMatchObject({ make: true, masked: false, ...expected });
  });
  it("neither → none", () => {
    expect(decideSample(signals({ method: "combine", evalScore: 0, evalSource: "votes", hintReason: "no vote found a hint" }))).toMatchObject({ make: false, category: "no-signal" });
  });
  it("one failed vote set leaves the other's signal (as the reference: no evaluation / no hint); both failed → none, reported", () => {
    expect(decideSample(signals({ method: "combine", evalFailed: true, ...hint }))).toMatchObject({ make: true, kind: "combined", reward: 0, teacher: "engine", why: expect.stringContaining("(every evaluation vote failed)") });
    expect(decideSample(signals({ method: "combine", hintFailed: true, evalScore: 1, evalSource: "votes" }))).toMatchObject({ make: true, kind: "combined", reward: 1, teacher: "rollout", why: expect.stringContaining("(every hint vote failed)") });
    expect(decideSample(signals({ method: "combine", hintFailed: true, evalScore: 0, evalSource: "votes" }))).toMatchObject({ make: false, category: "no-signal", reason: expect.stringContaining("(every hint vote failed)") });
    expect(decideSample(signals({ method: "combine", evalFailed: true, hintFailed: true }))).toMatchObject({ make: false, category: "judge-failed", reason: "judge failed: every evaluation and hint vote failed" });
  });
});

describe("the decision's reasons and the methods' needs", () => {
  it("says why no sample was made as the category status counts, without reading its own reason text", () => {
    expect(decideSample(signals({ method: "opd", hasNextState: false }))).toMatchObject({ make: false, category: "no-next-state" });
    expect(decideSample(signals({ method: "combine", hasNextState: false }))).toMatchObject({ make: false, category: "no-next-state" });
    expect(decideSample(signals({ method: "opd", hintReason: "the hint was too short" }))).toMatchObject({ make: false, category: "no-hint" });
  });

  it("what each method asks of judging", () => {
    expect(METHOD_NEEDS).toEqual({
      binary: { evaluation: true, hint: false, teacher: false, firstTurnGuarantee: true },
      opd: { evaluation: false, hint: true, teacher: true, firstTurnGuarantee: false },
      combine: { evaluation: true, hint: true, teacher: true, firstTurnGuarantee: false },
      hybrid: { evaluation: true, hint: true, teacher: false, firstTurnGuarantee: false },
    });
  });
});
