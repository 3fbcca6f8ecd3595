// Vote parsing, majority with ties and failed votes, and the hint choice (exactly 10 vs 11 characters).
import { describe, expect, it } from "vitest";
import { answerAfterThinking, characterCount, parseJudgeAnswer } from "../../orchestrator/judging/judge-answer.ts";
import { chooseHint, describeTally, tallyEvalVotes, type Vote } from "../../orchestrator/judging/vote-tally.ts";

function vote(index: number, score: number | null, hint = ""): Vote {
  return { index, score, hint, raw: "", error: score === null ? "failed" : null, callFailed: score === null, attempts: 1, ms: 1 };
}

describe("parseJudgeAnswer", () => {
  it("takes the LAST boxed value", () => {
    expect(parseJudgeAnswer("maybe \\boxed{-1}… no, on reflection \\boxed{1}", "eval").score).toBe(1);
    expect(parseJudgeAnswer("\\boxed{1} then \\boxed{0}", "eval").score).toBe(0);
    expect(parseJudgeAnswer("final: \\boxed{ -1 }<|im_end|>", "eval").score).toBe(-1);
    expect(parseJudgeAnswer("\\boxed{+1}", "eval").score).toBe(1);
  });

  it("parses after a Qwen3 <think> block, ignoring boxed values inside it", () => {
    const text = "<think>\nThe user says \\boxed{-1} might fit… but they thanked it.\n</think>\n\nScore: \\boxed{1}<|im_end|>";
    expect(parseJudgeAnswer(text, "eval")).toEqual({ score: 1, hint: "", problem: null });
    expect(answerAfterThinking("<think>never ends \\boxed{1}")).toBeNull();
    expect(parseJudgeAnswer("<think>never ends \\boxed{1}", "eval").score).toBeNull();
    expect(parseJudgeAnswer("<think>a</think>no decision", "eval").problem).toMatch(/no \\boxed/);
  });

  it("rejects values outside the purpose's set (hint votes are 1 / -1 only)", () => {
    expect(parseJudgeAnswer("\\boxed{2}", "eval")).toMatchObject({ score: null, problem: expect.stringContaining("not one of") });
    expect(parseJudgeAnswer("\\boxed{0}", "hint").score).toBeNull();
    expect(parseJudgeAnswer("\\boxed{1} then \\boxed{5}", "eval").score).toBeNull();
    expect(parseJudgeAnswer("", "eval").score).toBeNull();
  });

  it("extracts the last hint block, trimmed", () => {
    const parsed = parseJudgeAnswer("[HINT_START] first [HINT_END] [HINT_START]\n Use metric units.\n[HINT_END] \\boxed{1}", "hint");
    expect(parsed).toEqual({ score: 1, hint: "Use metric units.", problem: null });
  });

  it("counts characters as code points", () => {
    expect(characterCount("👍👍")).toBe(2);
    expect("👍👍".length).toBe(4);
  });
});

describe("tallyEvalVotes", () => {
  it("majority of valid votes", () => {
    expect(tallyEvalVotes([vote(0, 1), vote(1, 1), vote(2, -1)]).score).toBe(1);
    expect(tallyEvalVotes([vote(0, -1), vote(1, 0), vote(2, -1)]).score).toBe(-1);
  });
  it("a tie gives 0", () => {
    expect(tallyEvalVotes([vote(0, 1), vote(1, -1), vote(2, 0)])).toMatchObject({ score: 0, valid: 3, allFailed: false, tie: true });
    const tally = tallyEvalVotes([vote(0, 1), vote(1, -1), vote(2, null)]);
    expect(describeTally(tally, 3)).toBe("tie: +1×1 -1×1, 2 of 3 valid");
    expect(describeTally(tallyEvalVotes([vote(0, 1), vote(1, 1), vote(2, 0)]), 3)).toBe("majority: +1×2 0×1, 3 of 3 valid");
    expect(tallyEvalVotes([vote(0, 1), vote(1, -1), vote(2, null)])).toMatchObject({ score: 0, valid: 2, failed: 1 });
  });
  it("failed votes are no votes, not zeros", () => {
    expect(tallyEvalVotes([vote(0, 1), vote(1, null), vote(2, null)])).toMatchObject({ score: 1, valid: 1, failed: 2, allFailed: false });
    expect(tallyEvalVotes([vote(0, 0), vote(1, 1), vote(2, 1), vote(3, null)]).score).toBe(1);
  });
  it("all failed: no decision at all", () => {
    expect(tallyEvalVotes([vote(0, null), vote(1, null)])).toMatchObject({ score: 0, valid: 0, allFailed: true });
  });
});

describe("chooseHint", () => {
  it("keeps the longest positive hint longer than the minimum (10 chars: exactly 10 rejected, 11 kept)", () => {
    expect(chooseHint([vote(0, 1, "0123456789")], 10)).toMatchObject({ hint: null, reason: expect.stringContaining("longer than 10") });
    expect(chooseHint([vote(0, 1, "0123456789A")], 10)).toMatchObject({ hint: "0123456789A", fromVote: 0 });
    expect(chooseHint([vote(0, 1, "👍👍👍👍👍👍👍👍👍👍")], 10).hint).toBeNull(); // 10 code points, 20 UTF-16 units
  });
  it("ignores hints of negative votes and picks the longest, first on ties", () => {
    const votes = [vote(0, -1, "a much much longer hint that was rejected"), vote(1, 1, "short but ok!"), vote(2, 1, "the longest positive hint"), vote(3, 1, "the longest positive hinT")];
    expect(chooseHint(votes, 10)).toMatchObject({ hint: "the longest positive hint", fromVote: 2, positive: 3 });
  });
  it("reports why no hint was kept", () => {
    expect(chooseHint([vote(0, -1), vote(1, -1)], 10).reason).toMatch(/no vote found a hint/);
    expect(chooseHint([vote(0, null), vote(1, null)], 10)).toMatchObject({ allFailed: true, reason: "every hint vote failed" });
  });
});
