// A proxy with a scripted stand-in policy behind it (tests/proxy/harness.ts) and the rehearsal's stand-in judge as
// simulator and scorer, on loopback; and the evaluation plan that points at them.
import type { PersonaOpener } from "../../contracts/evaluation.ts";
import type { EvaluationPlan } from "../../orchestrator/evaluation/version-evaluation.ts";
import { JudgeResponder } from "../../rehearsal/judge-responder.ts";
import { StandinSglangServer } from "../../rehearsal/standin-sglang-server.ts";
import { qwen3, startHarness, type Harness, type Script } from "../proxy/harness.ts";

/** A policy script: the AI-flavoured style in the first reply to the student's openers, a plain one elsewhere. */
export function policyScript(promptText: string): string {
  const firstReply = promptText.split("<|im_start|>user").length === 2;
  const ai = /essay|lab report/.test(promptText) && firstReply;
  return `<think>\nok\n</think>\n\n${ai ? "As an AI language model, I can tell you that this works. I hope this helps!" : "Sure. Start with one short sentence."}`;
}

export interface EvaluationFixture {
  harness: Harness;
  judge: StandinSglangServer;
  judgeResponder: JudgeResponder;
  plan(openers: PersonaOpener[], samples: number, episodes?: EvaluationPlan["episodes"]): EvaluationPlan;
  close(): Promise<void>;
}

export async function startEvaluationFixture(script: Script): Promise<EvaluationFixture> {
  const harness = await startHarness({ script });
  const { tokenizer, template } = await qwen3();
  const judgeResponder = await JudgeResponder.create(tokenizer);
  const judge = new StandinSglangServer({ tokenizer, chatTemplate: template, responder: judgeResponder, role: "judge", tokenDelayMs: 0 });
  await judge.start();
  const judgeEndpoint = { url: judge.url, model: "default", timeoutMs: 30_000 };
  return {
    harness,
    judge,
    judgeResponder,
    plan: (openers, samples, episodes = null) => ({
      openers,
      samples,
      concurrency: 2,
      session: {
        policy: { url: `${harness.url}/v1`, model: "qwen3-4b", timeoutMs: 30_000 },
        policySampling: { temperature: 1, max_tokens: 256 },
        simulator: { endpoint: judgeEndpoint, temperature: 0.7, maxTokens: 256 },
        scorer: { endpoint: judgeEndpoint, votes: 2, temperature: 0.6, maxTokens: 256 },
      },
      episodes,
    }),
    async close() {
      await harness.close();
      await judge.close();
    },
  };
}
