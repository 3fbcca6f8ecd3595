// method hybrid in the stand-in trainer, end to end on the real pieces: turns of the stand-in policy's replies, judged by
// the judge stand-in's m hint votes (with variants) and its evaluation vote, dispatched by the real hybrid table and
// built into hybrid Samples by the real builder (hinted prompt ids + the response's ids), go through the real store and
// bridge as batch frames; the real native rollout function decodes them, the stand-in trainer trains on them with
// native's hybrid math and the judge stand-in as the teacher, and its step metrics reach the bridge under native's names.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../../contracts/chat.ts";
import type { RunEvent } from "../../../contracts/events.ts";
import { ChatTemplate } from "../../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../../lib/model/model-tokenizer.ts";
import { BridgeServer } from "../../../orchestrator/bridge/bridge-server.ts";
import { TrainingPause } from "../../../orchestrator/bridge/training-pause.ts";
import { EventBus } from "../../../orchestrator/event-bus.ts";
import type { Sample } from "../../../contracts/sample.ts";
import type { ClosedTurn } from "../../../contracts/turn.ts";
import { parseJudgeAnswer } from "../../../orchestrator/judging/judge-answer.ts";
import { evaluationPrompt, hintPrompt } from "../../../orchestrator/judging/judge-prompts.ts";
import { hintedPromptIds } from "../../../orchestrator/judging/hinted-prompt.ts";
import { dispatchHybrid, type HybridDispatch } from "../../../orchestrator/samples/hybrid-dispatch.ts";
import { buildHybridSample } from "../../../orchestrator/samples/hybrid-sample.ts";
import { SampleStore } from "../../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../../orchestrator/weights/weight-version-tracker.ts";
import { JudgeResponder } from "../../../rehearsal/judge/responder.ts";
import { PolicyResponder } from "../../../rehearsal/policy/responder.ts";
import { StandinSglangServer } from "../../../rehearsal/sglang/server.ts";

const QUESTIONS = ["How should I name my cat?", "How do I keep my basil alive?", "What is a good first hike?", "How do I boil an egg?"];
const HINT_VOTES = 3;
const SETTINGS = { minHintChars: 10, maxCandidates: 3, fallbackToUnenhanced: true };

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

/** One turn as the plane makes it for method hybrid: the policy's reply (AI-styled, rejected; or plain, thanked), the
 * judge's HINT_VOTES hint votes and one evaluation vote, the dispatch table, the hinted prompts and the Sample builder. */
async function hybridSample(index: number, style: "ai" | "plain", judge: JudgeResponder): Promise<{ sample: Sample; dispatch: HybridDispatch }> {
  const writer = await PolicyResponder.create(tokenizer, { seed: index, logits: style === "ai" ? [-9, -9, 9] : [9, -9, -9] });
  const messages: ChatMessage[] = [{ role: "user", content: QUESTIONS[index % QUESTIONS.length]! }];
  const prompt = await promptIds(messages);
  const reply = await writer.reply({ promptText: tokenizer.decode(prompt), inputIds: prompt, samplingParams: {}, rid: `r${index}`, weightVersion: "default" });
  const responseIds = reply.tokenIds!;
  const content = tokenizer.decode(responseIds, { skipSpecialTokens: true }).split("</think>").at(-1)!.trim();
  const nextState = style === "ai" ? "That sounds like an AI. Be natural, please." : "Thanks, that helps!";
  const ask = async (messagesForJudge: ChatMessage[], purpose: "eval" | "hint") => {
    const text = template.render(messagesForJudge, { tools: null, addGenerationPrompt: true });
    return parseJudgeAnswer(judge.reply({ promptText: text, inputIds: await tokenizer.encode(text), samplingParams: {}, rid: "j", weightVersion: "default" }).text!, purpose);
  };
  const hintVotes = await Promise.all(Array.from({ length: HINT_VOTES }, () => ask(hintPrompt(content, nextState, "user"), "hint")));
  const evalScore = (await ask(evaluationPrompt(content, nextState, "user"), "eval")).score;
  const dispatch = dispatchHybrid(hintVotes, evalScore, SETTINGS);
  if (!dispatch.make) throw new Error(dispatch.reason);
  const turn: ClosedTurn = {
    version: 1,
    sessionId: `s${index}`,
    turn: 1,
    decidedBy: { session: "new-session", turnType: "default-main", reason: "test" },
    messages,
    tools: null,
    promptIds: Int32Array.from(prompt),
    responseIds,
    responseLogProbs: reply.logprobs!,
    response: { role: "assistant", content },
    finishReason: "stop",
    weightVersions: [{ version: "default", start: 0, end: responseIds.length }],
    approximate: false,
    startedAt: 0,
    firstTokenAt: 0,
    endedAt: 0,
    nextState: { role: "user", messages: [{ role: "user", content: nextState }], text: nextState },
    closedBy: "next-request",
  };
  const hinted = await Promise.all(dispatch.hints.map((hint) => hintedPromptIds(messages, null, hint, template, tokenizer)));
  const built = buildHybridSample({ turn, dispatch, hintedPrompts: hinted, evalScore, now: 1_700_000_000_000 + index });
  if (!built.ok) throw new Error(built.reason);
  return { sample: built.sample, dispatch };
}

type Trained = Record<string, unknown> & { loss: number; probabilities: Record<string, number>; hybrid: Record<string, number> };
type StepEvent = Extract<RunEvent, { type: "trainer-metrics" }>;
const ROLLOUTS = 6;
const BATCH = 4;

/** ROLLOUTS × BATCH hybrid samples (sameBatch: the first BATCH turns again in every batch, under new ids) in a real
 * store behind a real bridge, a fresh stand-in policy (uniform styles), and the stand-in trainer with the real rollout
 * function until it has trained every batch. */
async function trainOnBridge(extra: string[], sameBatch = false): Promise<{ trained: Trained[]; steps: StepEvent[]; served: number; built: Array<{ sample: Sample; dispatch: HybridDispatch }> }> {
  const folder = await mkdtemp(path.join(tmpdir(), "standin-hybrid-"));
  const tracker = new WeightVersionTracker();
  tracker.observe("default");
  const store = await SampleStore.open(path.join(folder, "store"), { staleness: new StalenessPolicy(tracker, 1000) });
  const judge = await JudgeResponder.create(tokenizer, { seed: 1, hintVariants: true });
  const built: Array<{ sample: Sample; dispatch: HybridDispatch }> = [];
  for (let index = 0; index < ROLLOUTS * BATCH; index += 1) {
    const again = sameBatch && index >= BATCH ? built[index % BATCH]! : null;
    built.push(again ? { ...again, sample: { ...again.sample, sessionId: `again-${index}`, id: `again-${index}:1` } } : await hybridSample(index, index % 4 === 3 ? "plain" : "ai", judge));
  }
  for (const { sample } of built) await store.put(sample);
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
      ["rehearsal/trainer/trainer.py", "--policy-url", policyServer.url, "--judge-url", judgeServer.url, "--method", "hybrid", "--batch-size", String(BATCH), "--train-seconds", "0", "--num-rollout", String(ROLLOUTS), "--run-dir", folder, "--learn", "on", ...extra],
      { env: { PYTHONPATH: ["native", "rehearsal/trainer"].join(path.delimiter), OPENCLAW_RL_BRIDGE: url, OPENCLAW_RL_BRIDGE_TOKEN: token }, reject: false, timeout: 240_000 },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    await expect.poll(() => steps.length, { timeout: 10_000 }).toBe(ROLLOUTS);
    const trained = result.stdout.split("\n").filter((line) => line.startsWith('{"event": "trained"')).map((line) => JSON.parse(line) as Trained);
    return { trained, steps, served: (policy.describe() as { probabilities: Record<string, number> }).probabilities.ai!, built };
  } finally {
    await bridge.close();
    await store.close();
    await policyServer.close();
  }
}

describe("rehearsal/trainer/trainer.py --method hybrid", () => {
  it("trains on hybrid frames through the real bridge and rollout function; its step metrics reach the bridge under native's names", async () => {
    const { trained, steps, served, built } = await trainOnBridge(["--hybrid-topk", "2"]);
    expect(trained).toHaveLength(ROLLOUTS);
    // the judge's varied votes went through the real table: rejected turns kept one or two hints (the too-short and
    // duplicate ones dropped), thanked turns trained on the un-enhanced prompt
    const counts = built.map(({ sample }) => sample.hintCandidates!.length);
    expect(new Set(built.map(({ dispatch }) => dispatch.make && dispatch.case))).toEqual(new Set(["hint-and-evaluation", "evaluation-only"]));
    expect(new Set(counts.filter((_, index) => index % 4 !== 3))).toEqual(new Set([1, 2]));
    for (const { dispatch } of built) if (dispatch.make) expect(dispatch.hints).not.toContain("Be human.");
    const ai = trained.map((event) => event.probabilities.ai!);
    for (let step = 1; step < ai.length; step += 1) expect(ai[step]!, `step ${step}`).toBeLessThan(ai[step - 1]!);
    expect(ai.at(-1)!).toBeLessThan(0.05); // the preferred styles (plain, bulleted) hold the rest
    expect(served).toBeCloseTo(ai.at(-1)!, 3);
    expect(trained[1]!.hybrid.opd_loss).toBeLessThan(trained[0]!.hybrid.opd_loss!); // the policy moved toward the teacher
    for (const [step, event] of trained.entries()) {
      const batch = counts.slice(step * BATCH, (step + 1) * BATCH);
      expect(event.kinds).toEqual(["hybrid"]);
      expect(event.candidates_per_turn).toBeCloseTo(batch.reduce((sum, count) => sum + count, 0) / BATCH, 4);
      expect(event.teacher_forwards).toBe(3 * batch.reduce((sum, count) => sum + count, 0)); // one forward per style, per candidate
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

  it("learns from the teacher alone (w_rl 0) on one batch trained again and again: the loss falls and the AI style loses", async () => {
    const { trained } = await trainOnBridge(["--w-rl", "0", "--lr", "0.1"], true);
    const losses = trained.map((event) => event.loss);
    // every step at first; then Adam hovers around the optimum (the thanked turn's teacher, uniform, pulls the other way)
    for (let step = 1; step < 4; step += 1) expect(losses[step]!, JSON.stringify(losses)).toBeLessThan(losses[step - 1]!);
    expect(losses.at(-1)!, JSON.stringify(losses)).toBeLessThan(0.7 * losses[0]!);
    expect(trained.at(-1)!.probabilities.ai!).toBeLessThan(trained[0]!.probabilities.ai! - 0.1);
    for (const event of trained) expect(event.hybrid.grpo_pg_loss).toBe(0); // weighted 0: not computed, as native's loss
  }, 300_000);
});
