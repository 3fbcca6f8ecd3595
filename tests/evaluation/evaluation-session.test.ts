// Evaluation sessions against a real proxy (stand-in policy behind it) and the rehearsal's stand-in judge as simulator
// and scorer: every evaluation turn is a side turn (never closed, judged or trained), and the scorer measures the style.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PersonaOpener } from "../../contracts/evaluation.ts";
import { readPersonaSet, SHIPPED_PERSONAS } from "../../orchestrator/evaluation/held-out-set.ts";
import { evaluateVersion, type EvaluationPlan } from "../../orchestrator/evaluation/version-evaluation.ts";
import { JudgeResponder } from "../../rehearsal/judge-responder.ts";
import { StandinSglangServer } from "../../rehearsal/standin-sglang-server.ts";
import { qwen3, startHarness, type Harness } from "../proxy/harness.ts";

/** The policy's style: the AI-flavoured one in the first reply to the student's openers, a plain one elsewhere. */
function policyScript(promptText: string): string {
  const firstReply = promptText.split("<|im_start|>user").length === 2;
  const ai = /essay|lab report/.test(promptText) && firstReply;
  return `<think>\nok\n</think>\n\n${ai ? "As an AI language model, I can tell you that this works. I hope this helps!" : "Sure. Start with one short sentence."}`;
}

describe("evaluation sessions through the proxy", () => {
  let harness: Harness;
  let judge: StandinSglangServer;
  let judgeResponder: JudgeResponder;
  let openers: PersonaOpener[];

  beforeAll(async () => {
    harness = await startHarness({ script: policyScript });
    const { tokenizer, template } = await qwen3();
    judgeResponder = await JudgeResponder.create(tokenizer);
    judge = new StandinSglangServer({ tokenizer, chatTemplate: template, responder: judgeResponder, role: "judge", tokenDelayMs: 0 });
    await judge.start();
    openers = await readPersonaSet(SHIPPED_PERSONAS);
  });
  afterAll(async () => {
    await harness?.close();
    await judge?.close();
  });

  function plan(samples: number): EvaluationPlan {
    const judgeEndpoint = { url: judge.url, model: "default", timeoutMs: 30_000 };
    return {
      openers,
      samples,
      concurrency: 2,
      session: {
        policy: { url: `${harness.url}/v1`, model: "qwen3-4b", timeoutMs: 30_000 },
        policySampling: { temperature: 1, max_tokens: 256 },
        simulator: { endpoint: judgeEndpoint, temperature: 0.7, maxTokens: 256 },
        scorer: { endpoint: judgeEndpoint, votes: 2, temperature: 0.6, maxTokens: 256 },
      },
    };
  }

  it("plays every opener as side turns, never closed or judged, and scores the AI-styled sessions low", async () => {
    const { metrics, sessions } = await evaluateVersion(plan(1), "0", null);
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
