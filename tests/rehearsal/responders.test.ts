// The stand-in policy and judge as Responders: tool calls vs styled answers, the style token's log-prob,
// continuation after an abort, weight files, judge verdicts / hints from cues, and the teacher's style opinion.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { parseJudgeAnswer } from "../../orchestrator/judging/judge-answer.ts";
import { evaluationPrompt, hintPrompt } from "../../orchestrator/judging/judge-prompts.ts";
import { appendHint } from "../../orchestrator/judging/hinted-prompt.ts";
import { JudgeResponder, teacherStyleLogprobs } from "../../rehearsal/judge/responder.ts";
import { PolicyResponder } from "../../rehearsal/policy/responder.ts";
import { REPLY_STYLES, logSoftmax, styleOfText, stylePositions } from "../../rehearsal/policy/reply-styles.ts";
import { POLICY_FILE_FORMAT } from "../../rehearsal/policy/style-policy.ts";
import type { ChatMessage } from "../../contracts/chat.ts";

let tokenizer: ModelTokenizer;
let template: ChatTemplate;
const tools = [{ type: "function" as const, function: { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];

beforeAll(async () => {
  const files = await loadTokenizerFiles("builtin:qwen3");
  tokenizer = new ModelTokenizer(files);
  template = new ChatTemplate(files);
});

async function request(messages: ChatMessage[], withTools = true, extraIds: number[] = []) {
  const promptText = template.render(messages, { tools: withTools ? tools : null, addGenerationPrompt: true });
  const inputIds = [...(await tokenizer.encode(promptText)), ...extraIds];
  return { promptText: tokenizer.decode(inputIds), inputIds, samplingParams: {}, rid: "r", weightVersion: "default" };
}

describe("PolicyResponder", () => {
  it("calls an offered tool when the user asks to read something, with arguments from the request", async () => {
    const policy = await PolicyResponder.create(tokenizer, { seed: 3 });
    const reply = (await policy.reply(await request([{ role: "user", content: "Please read notes.txt for me" }])));
    const text = tokenizer.decode(reply.tokenIds!);
    expect(text).toMatch(/^<think>\n[\s\S]+<\/think>\n\n<tool_call>\n\{"name": "read", "arguments": \{"path": "notes.txt"\}\}\n<\/tool_call>$/);
  });

  it("answers in a sampled style whose decision token carries the policy's log-prob; otherwise the hash", async () => {
    const policy = await PolicyResponder.create(tokenizer, { seed: 3, logits: [0, 1, 2] });
    const expected = logSoftmax([0, 1, 2]);
    const seen = new Set<string>();
    for (let turn = 0; turn < 30; turn += 1) {
      const reply = (await policy.reply(await request([{ role: "user", content: `How do I water basil, question ${turn}?` }], false)));
      const ids = reply.tokenIds!;
      const style = styleOfText(tokenizer.decode(ids));
      expect(style).not.toBeNull();
      seen.add(style!);
      const [found] = stylePositions(ids, policy.tokens);
      expect(REPLY_STYLES[found!.style]!.name).toBe(style);
      expect(reply.logprobs![found!.position]).toBeCloseTo(expected[found!.style]!, 10);
      expect(reply.logprobs!.every((value) => value < 0)).toBe(true);
    }
    expect(seen.size).toBe(3);
  });

  it("continues a partial reply (prompt + tokens so far) with the rest of the same text", async () => {
    const policy = await PolicyResponder.create(tokenizer, { seed: 5 });
    const messages: ChatMessage[] = [{ role: "user", content: "Any tips for sleeping better?" }];
    const whole = (await policy.reply(await request(messages, false))).tokenIds!;
    const [decision] = stylePositions(whole, policy.tokens);
    const cut = decision!.position + 3;
    const rest = (await policy.reply(await request(messages, false, whole.slice(0, cut)))).tokenIds!;
    expect([...whole.slice(0, cut), ...rest]).toEqual(whole);
  });

  it("loads new logits from a policy file (the weight update) and rejects a malformed one", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "standin-policy-"));
    const file = path.join(folder, "policy.json");
    await writeFile(file, JSON.stringify({ format: POLICY_FILE_FORMAT, styles: ["plain", "bulleted", "ai"], logits: [2, 0, -3] }));
    const policy = await PolicyResponder.create(tokenizer, { seed: 1 });
    await policy.loadWeights(file);
    const probabilities = (policy.describe() as { probabilities: Record<string, number> }).probabilities;
    expect(probabilities.ai).toBeCloseTo(Math.exp(logSoftmax([2, 0, -3])[2]!), 10);
    await writeFile(file, JSON.stringify({ format: POLICY_FILE_FORMAT, styles: ["plain"], logits: [1] }));
    await expect(policy.loadWeights(file)).rejects.toThrow(/not a stand-in policy file/);
  });
});

describe("JudgeResponder", () => {
  const judge = () => JudgeResponder.create(tokenizer);
  const asRequest = (messages: ChatMessage[]) => request(messages, false);

  it("scores next states from their cues in the evaluation format", async () => {
    const cases: Array<[string, "user" | "tool", number]> = [
      ["That sounds like an AI. Be natural, please.", "user", -1],
      ["Thanks, that helps!", "user", 1],
      ["👍", "user", 1],
      ["Error: no such file notes.txt", "tool", -1],
      ["line one of the file", "tool", 1],
      ["What is the capital of Peru?", "user", 0],
    ];
    for (const [nextState, role, score] of cases) {
      const text = (await judge()).reply(await asRequest(evaluationPrompt("Sure. Here it is.", nextState, role))).text!;
      expect(text.match(/\\boxed\{(-?\d)\}/g)!.at(-1)).toBe(`\\boxed{${score}}`);
    }
  });

  it("gives a hint for a 'be natural' rejection and none for thanks", async () => {
    const hinted = (await judge()).reply(await asRequest(hintPrompt("As an AI language model, ...", "That sounds like an AI. Be natural.", "user"))).text!;
    expect(hinted).toMatch(/\\boxed\{1\}\n\[HINT_START\].*natural, human voice.*\[HINT_END\]$/);
    const none = (await judge()).reply(await asRequest(hintPrompt("Sure.", "Thanks!", "user"))).text!;
    expect(none).toMatch(/\\boxed\{-1\}$/);
    expect(none).not.toContain("[HINT_START]");
  });

  it("with hint variants, answers m hint votes on one turn with distinct candidates: reworded, too short, a duplicate, no hint", async () => {
    const canonical = 'Answer in a natural, human voice. Never open with "As an AI language model".';
    const votesOf = async (nextState: string, m: number, options: { seed?: number; hintVariants?: boolean }) => {
      const responder = await JudgeResponder.create(tokenizer, options);
      const asked = await asRequest(hintPrompt("As an AI language model, ...", nextState, "user"));
      return Array.from({ length: m }, () => parseJudgeAnswer(responder.reply(asked).text!, "hint")).map((vote) => (vote.score === 1 ? vote.hint : vote.score));
    };
    const rejection = "That sounds like an AI. Be natural, please.";
    // without variants (the default: binary, opd, combine) every ask gets the canonical hint
    expect(await votesOf(rejection, 3, { seed: 5 })).toEqual([canonical, canonical, canonical]);
    // with them, five asks walk one cycle: canonical twice (a duplicate), reworded, too short (dropped by the
    // reference's length rule: over 10 characters), no hint
    const cycle = await votesOf(rejection, 5, { seed: 0, hintVariants: true });
    expect([...cycle].sort()).toEqual([canonical, canonical, "Be human.", "Sound like a person talking, not an assistant reciting a disclaimer.", -1].sort());
    // repeatable per seed; any three asks in a row hold the canonical hint (opd's longest-hint rule keeps it)
    expect(await votesOf(rejection, 5, { seed: 0, hintVariants: true })).toEqual(cycle);
    const long = await votesOf(rejection, 12, { seed: 0, hintVariants: true });
    for (let ask = 0; ask + 3 <= long.length; ask += 1) expect(long.slice(ask, ask + 3), `asks ${ask}..${ask + 2}`).toContain(canonical);
    // the seed moves where each prompt's cycle starts
    const starts = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(async (seed) => JSON.stringify((await votesOf(rejection, 2, { seed, hintVariants: true })))));
    expect(new Set(starts).size).toBeGreaterThan(1);
    // a correction quotes the user in both wordings; a next state that teaches nothing gets -1 on every ask
    const corrected = await votesOf("No, that is wrong: use metric units.", 5, { hintVariants: true });
    expect(corrected).toContain('Follow the user\'s correction: "No, that is wrong: use metric units.".');
    expect(corrected).toContain('The user said: "No, that is wrong: use metric units.". Do what they ask there.');
    expect(await votesOf("Thanks!", 3, { hintVariants: true })).toEqual([-1, -1, -1]);
  });

  it("as the teacher, dislikes the AI style less under the reworded hint, and not at all under a hint about something else", async () => {
    const messages: ChatMessage[] = [{ role: "user", content: "How should I name my cat?" }];
    const share = async (hint: string) => {
      const ids = await tokenizer.encode(template.render(appendHint(messages, hint), { tools: null, addGenerationPrompt: true }));
      const decision = [...ids, ...(await judge()).tokens.markerIds, (await judge()).tokens.styleIds[2]!];
      return Math.exp((await judge()).score({ inputIds: decision, promptText: tokenizer.decode(decision), weightVersion: "x" }).at(-1)!);
    };
    expect(await share('Answer in a natural, human voice. Never open with "As an AI language model".')).toBeCloseTo(0.02, 10);
    expect(await share("Sound like a person talking, not an assistant reciting a disclaimer.")).toBeCloseTo(0.1, 10);
    expect(await share("Use metric units.")).toBeCloseTo(1 / 3, 10);
  });

  it("as the teacher, dislikes the AI style on a hinted prompt and agrees with the policy's hash elsewhere", async () => {
    const policy = await PolicyResponder.create(tokenizer, { seed: 2, logits: [-5, -5, 5] }); // always the AI style
    const messages: ChatMessage[] = [{ role: "user", content: "How should I name my cat?" }];
    const response = (await policy.reply(await request(messages, false)));
    const hint = 'Answer in a natural, human voice. Never open with "As an AI language model".';
    const hintedPrompt = await tokenizer.encode(template.render(appendHint(messages, hint), { tools: null, addGenerationPrompt: true }));
    const ids = [...hintedPrompt, ...response.tokenIds!];
    const scores = (await judge()).score({ inputIds: ids, promptText: tokenizer.decode(ids), weightVersion: "x" });
    const [decision] = stylePositions(response.tokenIds!, policy.tokens);
    const teacher = response.tokenIds!.map((_, index) => scores[hintedPrompt.length + index]!);
    expect(teacher[decision!.position]).toBeCloseTo(teacherStyleLogprobs(0.02)[2]!, 10);
    teacher.forEach((value, index) => {
      if (index !== decision!.position) expect(value).toBe(response.logprobs![index]);
    });
    const plain = (await judge()).score({ inputIds: [...(await tokenizer.encode(template.render(messages, { tools: null, addGenerationPrompt: true }))), ...response.tokenIds!], promptText: "", weightVersion: "x" });
    expect(plain.filter((value) => Math.abs(value - Math.log(1 / 3)) < 1e-12)).toHaveLength(1);
  });
});
