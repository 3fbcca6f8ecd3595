// A proxy with a scripted stand-in policy behind it (tests/proxy/harness.ts) and the rehearsal's stand-in judge as
// simulator and scorer, on loopback; and the evaluation plan that points at them.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { PersonaOpener } from "../../contracts/evaluation.ts";
import { recipeSchema, type Recipe } from "../../contracts/recipe.ts";
import type { EvaluationPlan } from "../../orchestrator/evaluation/version-evaluation.ts";
import { JudgeResponder } from "../../rehearsal/judge/responder.ts";
import { StandinSglangServer } from "../../rehearsal/sglang/server.ts";
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

/**
 * A recipe for an orchestrator in front of the fixture's engines (engine and judge external), with `openers`
 * one-reply persona openers written into runDir and `evaluation` settings on top of one sample and one vote each.
 */
export function fixtureRecipe(fixture: EvaluationFixture, runDir: string, openers: number, evaluation: Record<string, unknown>): Recipe {
  const personas = path.join(runDir, "personas.jsonl");
  const opener = (index: number) => ({ id: `o${index}`, persona: "You want a plain answer.", opener: `Question ${index}: how do I start?`, rubric: "Does every reply sound like a person wrote it?", turns: 1 });
  writeFileSync(personas, Array.from({ length: openers }, (_, index) => JSON.stringify(opener(index))).join("\n") + "\n");
  return recipeSchema.parse({
    method: "binary",
    model: { path: "builtin:qwen3", tokenizer_path: "builtin:qwen3" },
    judge: { launch: "external", url: fixture.judge.url },
    engine: { kind: "external", policy_url: fixture.harness.standin.url },
    records: { dir: runDir },
    evaluation: { samples: 1, votes: 1, personas, ...evaluation },
  });
}
