// method hybrid in the stand-in trainer, end to end on the real pieces: hand-made hybrid samples (the stand-in policy's
// replies, each with hint candidates = hinted prompt ids + the response's ids) go through the real store and bridge
// as batch frames, the real native rollout function decodes them, the stand-in trainer trains on them with native's
// hybrid math and the judge stand-in as the teacher, and its step metrics reach the bridge under native's names.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../contracts/chat.ts";
import type { RunEvent } from "../../contracts/events.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { TrainingPause } from "../../orchestrator/bridge/training-pause.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { appendHint } from "../../orchestrator/judging/hinted-prompt.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { JudgeResponder } from "../../rehearsal/judge-responder.ts";
import { PolicyResponder } from "../../rehearsal/policy-responder.ts";
import { StandinSglangServer } from "../../rehearsal/standin-sglang-server.ts";
import { makeSample } from "../bridge/sample-factory.ts";

const CANONICAL = 'Answer in a natural, human voice. Never open with "As an AI language model".';
const REWORDED = "Sound like a person talking, not an assistant reciting a disclaimer.";
const QUESTIONS = ["How should I name my cat?", "How do I keep my basil alive?", "What is a good first hike?", "How do I boil an egg?"];

let tokenizer: ModelTokenizer;
let template: ChatTemplate;
let judgeServer: StandinSglangServer;

beforeAll(async () => {
  const files = await loadTokenizerFiles("builtin:qwen3");
  tokenizer = new ModelTokenizer(files);
  template = new ChatTemplate(files);
  judgeServer = new StandinSglangServer({ tokenizer, responder: await JudgeResponder.create(tokenizer), role: "judge" });
  await judgeServer.start();
});
afterAll(async () => {
  await judgeServer?.close();
});

const promptIds = async (messages: ChatMessage[]) => tokenizer.encode(template.render(messages, { tools: null, addGenerationPrompt: true }));

/** One turn as the plane would store it for method hybrid: the AI-styled reply is rejected (reward −1) with two hints,
 * shortest first; a plain reply is accepted (reward +1) and its one candidate is the un-enhanced prompt. */
async function hybridSample(index: number, style: "ai" | "plain") {
  const writer = await PolicyResponder.create(tokenizer, { seed: index, logits: style === "ai" ? [-9, -9, 9] : [9, -9, -9] });
  const messages: ChatMessage[] = [{ role: "user", content: QUESTIONS[index % QUESTIONS.length]! }];
  const prompt = await promptIds(messages);
  const promptText = tokenizer.decode(prompt);
  const reply = await writer.reply({ promptText, inputIds: prompt, samplingParams: {}, rid: `r${index}`, weightVersion: "default" });
  const response = reply.tokenIds!;
  const hints = style === "ai" ? [REWORDED, CANONICAL] : [];
  const candidates = hints.length > 0 ? await Promise.all(hints.map(async (hint) => [...(await promptIds(appendHint(messages, hint))), ...response])) : [[...prompt, ...response]];
  return {
    ...makeSample(index, { kind: "hybrid", reward: style === "ai" ? -1 : 1 }),
    tokens: [...prompt, ...response],
    responseLength: response.length,
    lossMask: response.map(() => 1),
    rolloutLogProbs: reply.logprobs!,
    weightVersions: response.map(() => "default"),
    status: "completed" as const,
    hintCandidates: candidates,
  };
}

type Trained = Record<string, unknown> & { loss: number; probabilities: Record<string, number>; hybrid: Record<string, number> };
type StepEvent = Extract<RunEvent, { type: "trainer-metrics" }>;
const ROLLOUTS = 6;
const BATCH = 4;

/** ROLLOUTS × BATCH hand-made hybrid samples in a real store behind a real bridge, a fresh stand-in policy (uniform
 * styles), and the stand-in trainer with the real rollout function until it has trained every batch. */
async function trainOnBridge(extra: string[]): Promise<{ trained: Trained[]; steps: StepEvent[]; served: number }> {
  const folder = await mkdtemp(path.join(tmpdir(), "standin-hybrid-"));
  const tracker = new WeightVersionTracker();
  tracker.observe("default");
  const store = await SampleStore.open(path.join(folder, "store"), { staleness: new StalenessPolicy(tracker, 1000) });
  for (let index = 0; index < ROLLOUTS * BATCH; index += 1) await store.put(await hybridSample(index, index % 4 === 3 ? "plain" : "ai"));
  const bus = new EventBus();
  const steps: StepEvent[] = [];
  bus.subscribe((event) => {
    if (event.type === "trainer-metrics") steps.push(event);
  });
  const bridge = new BridgeServer({ store, bus, recordsDir: folder, pause: new TrainingPause(bus, "resume-training") });
  const policy = await PolicyResponder.create(tokenizer, { seed: 3 });
  const policyServer = new StandinSglangServer({ tokenizer, responder: policy });
  await policyServer.start();
  const { url, token } = await bridge.start({ host: "127.0.0.1", port: 0 });
  try {
    const result = await execa(
      "/usr/bin/python3",
      ["rehearsal/standin_trainer.py", "--policy-url", policyServer.url, "--judge-url", judgeServer.url, "--method", "hybrid", "--batch-size", String(BATCH), "--train-seconds", "0", "--num-rollout", String(ROLLOUTS), "--run-dir", folder, "--learn", "on", ...extra],
      { env: { PYTHONPATH: ["native", "rehearsal"].join(path.delimiter), OPENCLAW_RL_BRIDGE: url, OPENCLAW_RL_BRIDGE_TOKEN: token }, reject: false, timeout: 240_000 },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    await expect.poll(() => steps.length, { timeout: 10_000 }).toBe(ROLLOUTS);
    const trained = result.stdout.split("\n").filter((line) => line.startsWith('{"event": "trained"')).map((line) => JSON.parse(line) as Trained);
    return { trained, steps, served: (policy.describe() as { probabilities: Record<string, number> }).probabilities.ai! };
  } finally {
    await bridge.close();
    await store.close();
    await policyServer.close();
  }
}

describe("standin_trainer.py --method hybrid", () => {
  it("trains on hybrid frames through the real bridge and rollout function; its step metrics reach the bridge under native's names", async () => {
    const { trained, steps, served } = await trainOnBridge(["--hybrid-topk", "2"]);
    expect(trained).toHaveLength(ROLLOUTS);
    const ai = trained.map((event) => event.probabilities.ai!);
    for (let step = 1; step < ai.length; step += 1) expect(ai[step]!, `step ${step}`).toBeLessThan(ai[step - 1]!);
    expect(ai.at(-1)!).toBeLessThan(0.05); // the preferred styles (plain, bulleted) hold the rest
    expect(served).toBeCloseTo(ai.at(-1)!, 3);
    expect(trained[1]!.hybrid.opd_loss).toBeLessThan(trained[0]!.hybrid.opd_loss!); // the policy moved toward the teacher
    for (const event of trained) {
      expect(event.kinds).toEqual(["hybrid"]);
      expect(event.candidates_per_turn).toBe(1.75); // three rejected turns with 2 candidates, one accepted with 1
      expect(event.teacher_forwards).toBe(3 * 7); // one forward per style, per candidate
      expect(event.hybrid.grpo_pg_loss).toBeCloseTo(0.5, 6); // −mean reward (−1, −1, −1, +1) at ratio 1
    }
    expect(steps.map((event) => event.step)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const event of steps) {
      for (const name of ["grpo_pg_loss", "opd_loss", "opd_subset_size", "sel_overlap_at_k_star", "sel_k_star_mean", "opd_pg_clipfrac", "grpo_pg_clipfrac", "ppo_kl_sampled", "opd_teacher_student_logp_topk_abs_mean"]) {
        expect(event.metrics[name], name).toBe(trained[event.step]!.hybrid[name]);
      }
      expect(event.loss).toBe(trained[event.step]!.loss);
      expect(event.metrics.opd_subset_size).toBeCloseTo(2, 6); // subset student: |S_t| = K on every token
      expect(event.metrics.sel_overlap_at_k_star).toBeGreaterThan(1.9); // K on every token but the decision's
      expect(event.metrics.sel_overlap_at_k_star).toBeLessThanOrEqual(2);
    }
  }, 300_000);

  it("learns from the teacher alone (w_rl 0): the loss falls every step and the AI style loses", async () => {
    const { trained } = await trainOnBridge(["--w-rl", "0", "--lr", "0.1"]);
    const losses = trained.map((event) => event.loss);
    for (let step = 1; step < losses.length; step += 1) expect(losses[step]!, JSON.stringify(losses)).toBeLessThan(losses[step - 1]!);
    expect(trained.at(-1)!.probabilities.ai!).toBeLessThan(trained[0]!.probabilities.ai! - 0.1);
    for (const event of trained) expect(event.hybrid.grpo_pg_loss).toBe(0); // weighted 0: not computed, as native's loss
  }, 300_000);
});
