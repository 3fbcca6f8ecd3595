// Evaluation sessions against a real proxy (stand-in policy behind it) and the rehearsal's stand-in judge as simulator
// and scorer: every evaluation turn is a side turn (never closed, judged or trained), and the scorer measures the style.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PersonaOpener } from "../../contracts/evaluation.ts";
import { readPersonaSet, SHIPPED_PERSONAS } from "../../orchestrator/evaluation/held-out-set.ts";
import { evaluateVersion } from "../../orchestrator/evaluation/version-evaluation.ts";
import { policyScript, startEvaluationFixture, type EvaluationFixture } from "./evaluation-fixture.ts";

describe("evaluation sessions through the proxy", () => {
  let fixture: EvaluationFixture;
  let openers: PersonaOpener[];

  beforeAll(async () => {
    fixture = await startEvaluationFixture(policyScript);
    openers = await readPersonaSet(SHIPPED_PERSONAS);
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it("plays every opener as side turns, never closed or judged, and scores the AI-styled sessions low", async () => {
    const { harness, judgeResponder } = fixture;
    const { metrics, sessions } = await evaluateVersion(fixture.plan(openers, 1), "0", null);
    expect(sessions).toHaveLength(openers.length);
    expect(sessions.every((session) => session.failure === null)).toBe(true);
    const turns = openers.reduce((sum, opener) => sum + opener.turns, 0);
    expect(metrics.requests).toEqual({ policy: turns, simulator: turns - openers.length, scorer: 2 * openers.length });
    const starts = harness.events.filter((event) => event.type === "turn-start");
    expect(starts).toHaveLength(turns);
    expect(starts.every((event) => event.type === "turn-start" && event.turnType === "side")).toBe(true);
    expect(harness.closed).toEqual([]); // (no main turn closed: nothing to judge, no sample)
    expect(harness.events.some((event) => event.type === "turn-closed" || event.type === "turn-judged")).toBe(false);
    // the student's openers: AI-styled first reply, rejected by the simulated user, then plain → 2 of 3 natural
    const student = sessions.find((session) => session.openerId === "student-essay")!;
    expect(student.transcript[2]).toEqual({ role: "user", content: "That sounds like an AI. Be natural, please." });
    expect(student.votes).toEqual([7, 7]);
    expect(student.score).toBeCloseTo(0.7, 10);
    expect(sessions.find((session) => session.openerId === "everyday-cooking")!.score).toBe(1);
    expect(metrics.meanScore).toBeCloseTo((2 * 0.7 + 6) / 8, 10);
    expect(metrics.scoreCi!.low).toBeLessThan(metrics.meanScore!);
    expect(judgeResponder.answered.evaluation).toBe(turns - openers.length + 2 * openers.length);
    expect(judgeResponder.answered.eval).toBe(0);
  });
});
