// The hybrid's dispatch table against the reference's own server: every case in dispatch-cases.json was answered by
// its _opd_evaluate and dispatch (tools/hybrid-dispatch-oracle.py); ours must give the same sample, reward and
// candidates, from the evaluation votes tallied as the judge tallies them.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tallyEvalVotes, type Vote } from "../../orchestrator/judging/vote-tally.ts";
import { dispatchHybrid, keptHints, type HintVote } from "../../orchestrator/samples/hybrid-dispatch.ts";
import { decideSample, type JudgedSignals } from "../../orchestrator/samples/sample-decision.ts";
import { REPO_ROOT } from "../golden/golden-plan.ts";

interface OracleCase {
  name: string;
  hintVotes: HintVote[];
  evalVotes: (number | null)[];
  maxCandidates: number;
  evalScore: number;
  sample: { reward: number; candidates: string[] } | null;
}

const oracle = JSON.parse(readFileSync(path.join(REPO_ROOT, "tests", "fixtures", "openclaw-rl-hybrid", "dispatch-cases.json"), "utf8")) as { minHintChars: number; cases: OracleCase[] };

function evalVote(score: number | null, index: number): Vote {
  return { index, score, hint: "", raw: "", error: score === null ? "failed" : null, callFailed: score === null, attempts: 1, ms: 0 };
}

describe("the hybrid's dispatch, case by case against the reference's server", () => {
  it("has cases for each row of the table", () => {
    const rows = new Set(oracle.cases.map((item) => (item.sample === null ? "none" : item.sample.candidates[0] === "<unenhanced>" ? "evaluation only" : item.sample.reward === 0 ? "hint (reward 0)" : "hint and evaluation")));
    expect([...rows].sort()).toEqual(["evaluation only", "hint (reward 0)", "hint and evaluation", "none"]);
  });

  for (const item of oracle.cases) {
    it(item.name, () => {
      const tally = tallyEvalVotes(item.evalVotes.map(evalVote));
      expect(tally.score).toBe(item.evalScore);
      const settings = { minHintChars: oracle.minHintChars, maxCandidates: item.maxCandidates, fallbackToUnenhanced: true };
      const dispatch = dispatchHybrid(item.hintVotes, tally.allFailed ? null : tally.score, settings);
      if (item.sample === null) {
        expect(dispatch).toMatchObject({ make: false, case: "neither" });
        return;
      }
      expect(dispatch.make).toBe(true);
      if (!dispatch.make) return;
      expect(dispatch.reward).toBe(item.sample.reward);
      expect(dispatch.case === "evaluation-only" ? ["<unenhanced>"] : dispatch.hints).toEqual(item.sample.candidates);
    });
  }
});

describe("the hybrid's dispatch beyond the reference's fixed settings", () => {
  const votes: HintVote[] = [{ score: 1, hint: "a longer hint here" }, { score: 1, hint: "short" }];

  it("hybrid.min_hint_chars moves the length a hint must exceed", () => {
    expect(keptHints(votes, 10, 3)).toEqual(["a longer hint here"]);
    expect(keptHints(votes, 4, 3)).toEqual(["short", "a longer hint here"]);
    expect(keptHints(votes, 5, 3)).toEqual(["a longer hint here"]);
  });

  it("hybrid.fallback_to_unenhanced false: an evaluation-only turn makes no sample (a hybrid batch needs a candidate on every sample)", () => {
    expect(dispatchHybrid([], -1, { minHintChars: 10, maxCandidates: 3, fallbackToUnenhanced: false })).toEqual({
      make: false,
      case: "evaluation-only",
      reason: "hybrid: evaluation -1 but no hint kept (of 0 votes), and hybrid.fallback_to_unenhanced is false",
    });
    expect(dispatchHybrid([], -1, { minHintChars: 10, maxCandidates: 3, fallbackToUnenhanced: true })).toMatchObject({ make: true, case: "evaluation-only", reward: -1, hints: [] });
  });

  it("decideSample's hybrid branch follows its dispatch (every kept hint), and needs it", () => {
    const signals = { method: "hybrid", hasNextState: true, evalScore: 1, evalSource: "votes", evalFailed: false, evalDetail: "", hint: "a hint", hintSource: "votes", hintFailed: false, hintReason: null, sessionHasEffectiveSample: false } satisfies JudgedSignals;
    expect(() => decideSample(signals)).toThrow(/method hybrid decides from its dispatch/);
    const settings = { minHintChars: 4, maxCandidates: 3, fallbackToUnenhanced: true };
    expect(decideSample({ ...signals, hybridDispatch: dispatchHybrid(votes, 1, settings) })).toEqual({ make: true, kind: "hybrid", reward: 1, teacher: "none", masked: false, promoted: false, why: "hybrid: 2 hints of 2 votes + evaluation +1" });
    expect(decideSample({ ...signals, evalScore: 0, hybridDispatch: dispatchHybrid([], 0, settings) })).toEqual({ make: false, reason: "hybrid: no hint kept (of 0 votes) and evaluation 0", category: "no-signal" });
    expect(decideSample({ ...signals, evalScore: null, evalFailed: true, hintFailed: true, hybridDispatch: dispatchHybrid([], null, settings) })).toMatchObject({ make: false, category: "judge-failed" });
    expect(decideSample({ ...signals, hybridDispatch: dispatchHybrid([], 1, { ...settings, fallbackToUnenhanced: false }) })).toMatchObject({ make: false, category: "no-hint" });
  });

  it("says why, for the records", () => {
    const settings = { minHintChars: 4, maxCandidates: 3, fallbackToUnenhanced: true };
    expect(dispatchHybrid(votes, 1, settings)).toMatchObject({ case: "hint-and-evaluation", why: "hybrid: 2 hints of 2 votes + evaluation +1" });
    expect(dispatchHybrid(votes, 0, settings)).toMatchObject({ case: "hint-only", why: "hybrid: 2 hints of 2 votes, evaluation 0 → reward 0" });
    expect(dispatchHybrid([], null, settings)).toEqual({ make: false, case: "neither", reason: "hybrid: no hint kept (of 0 votes) and evaluation none" });
  });
});
