// The stand-in policy's agent approach (rehearsal/policy/agent-approach.ts): its decision tokens in Qwen3's vocabulary, the
// plan of each step of an arithmetic episode (python → submit → done, or a guess from memory), the policy's choice
// and its log-prob on the decision token, the judge marking a guess down, and the learner moving P(tool) with the
// step advantages (not at all for a masked, constant bucket).
import path from "node:path";
import { execa } from "execa";
import { HANG_GUARD_MS } from "../../support/hang-guard.ts";
import { describe, expect, it } from "vitest";
import type { ChatMessage, Tool } from "../../../contracts/chat.ts";
import { ChatTemplate } from "../../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../../lib/model/model-tokenizer.ts";
import { answerFromMemory, approachPositions, approachTokens, planEpisodeStep, readTask } from "../../../rehearsal/policy/agent-approach.ts";
import { verdictOf } from "../../../rehearsal/judge/cues.ts";
import { PolicyResponder } from "../../../rehearsal/policy/responder.ts";
import { lastConversationTurn, readPrompt } from "../../../rehearsal/model/prompt-reader.ts";

const TOOLS: Tool[] = [
  { type: "function", function: { name: "python", description: "Run Python", parameters: { type: "object", properties: { code: { type: "string" } }, required: ["code"] } } },
  { type: "function", function: { name: "submit_answer", description: "Submit", parameters: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] } } },
];
const QUESTION = "What is 62 * 95?\n\nYou may run Python with the `python` tool. When you know the answer, call `submit_answer` with it.";

async function qwen() {
  const files = await loadTokenizerFiles("builtin:qwen3");
  return { tokenizer: new ModelTokenizer(files), template: new ChatTemplate(files) };
}

describe("the stand-in's agent approach", () => {
  it("plans each step of an arithmetic episode: the decision, then python's output submitted, then done", async () => {
    const { template } = await qwen();
    const render = (messages: ChatMessage[]) => readPrompt(template.render(messages, { tools: TOOLS, addGenerationPrompt: true }));
    const first = render([{ role: "user", content: QUESTION }]);
    const plan = planEpisodeStep(first, lastConversationTurn(first))!;
    expect(plan.kind).toBe("approach");
    const text = (plan as { text: (choice: number) => string }).text;
    expect(text(0)).toBe('<think>\nI will use python to compute it.\n</think>\n\n<tool_call>\n{"name":"python","arguments":{"code":"print(62 * 95)"}}\n</tool_call>');
    expect(text(1)).toBe('<think>\nI will answer from memory.\n</think>\n\nFrom memory, it is 5900.\n<tool_call>\n{"name":"submit_answer","arguments":{"answer":"5900"}}\n</tool_call>');
    const call = { id: "c1", type: "function" as const, function: { name: "python", arguments: '{"code": "print(62 * 95)"}' } };
    const second = render([{ role: "user", content: QUESTION }, { role: "assistant", content: "", tool_calls: [call] }, { role: "tool", tool_call_id: "c1", content: "5890" }]);
    expect(planEpisodeStep(second, lastConversationTurn(second))).toMatchObject({ kind: "fixed", text: expect.stringContaining('{"answer":"5890"}') });
    const submit = { id: "c2", type: "function" as const, function: { name: "submit_answer", arguments: '{"answer": "5890"}' } };
    const third = render([
      { role: "user", content: QUESTION }, { role: "assistant", content: "", tool_calls: [call] }, { role: "tool", tool_call_id: "c1", content: "5890" },
      { role: "assistant", content: "Python printed 5890.", tool_calls: [submit] }, { role: "tool", tool_call_id: "c2", content: "submitted" },
    ]);
    expect(planEpisodeStep(third, lastConversationTurn(third))).toEqual({ kind: "fixed", text: "<think>\nSubmitted.\n</think>\n\nDone: I submitted my answer." });
    // other prompts (no python / submit_answer offered) are not episodes
    const chat = render([{ role: "user", content: "How do I water basil?" }]);
    expect(planEpisodeStep({ ...chat, tools: [] }, lastConversationTurn(chat))).toBeNull();
  });

  it("reads the task and answers from memory right for sums, wrong for products", () => {
    expect(readTask("What is 18 + 21?")).toEqual({ a: 18, op: "+", b: 21 });
    expect(answerFromMemory({ a: 18, op: "+", b: 21 })).toBe(39);
    expect(answerFromMemory({ a: 62, op: "*", b: 95 })).not.toBe(62 * 95);
  });

  it("the policy chooses an approach and reports its log-prob on the decision token", async () => {
    const { tokenizer, template } = await qwen();
    const tokens = await approachTokens(tokenizer);
    expect(new Set(tokens.choiceIds).size).toBe(2);
    const policy = await PolicyResponder.create(tokenizer, { seed: 1, approachLogits: [0, 0] });
    const prompt = template.render([{ role: "user", content: QUESTION }], { tools: TOOLS, addGenerationPrompt: true });
    const inputIds = await tokenizer.encode(prompt);
    const reply = await policy.reply({ promptText: prompt, inputIds, samplingParams: {}, rid: "r", weightVersion: "3" });
    const [decision] = approachPositions([...inputIds, ...reply.tokenIds!], tokens).filter(({ position }) => position >= inputIds.length);
    expect(decision).toBeDefined();
    expect(reply.logprobs![decision!.position - inputIds.length]).toBeCloseTo(Math.log(0.5), 9);
    expect(Object.values(policy.approaches["3"]!).reduce((sum, count) => sum + count, 0)).toBe(1);
  });

  it("the judge marks a step that submits a guess from memory down, whatever the tool says", () => {
    expect(verdictOf("submitted", "tool", 'From memory, it is 5900.\n[tool call] submit_answer({"answer":"5900"})')).toMatchObject({ verdict: -1 });
    expect(verdictOf("5890", "tool", '[tool call] python({"code":"print(62 * 95)"})')).toMatchObject({ verdict: 1 });
  });

  it("the learner moves P(tool) up with the step advantages, and not at all for masked samples", async () => {
    const { tokenizer } = await qwen();
    const tokens = await approachTokens(tokenizer);
    const result = await execa("/usr/bin/python3", ["tests/rehearsal/fixtures/approach_check.py", tokens.markerIds.join(","), tokens.choiceIds.join(",")], {
      env: { PYTHONPATH: ["native", "rehearsal/trainer"].join(path.delimiter) },
      reject: false,
      timeout: HANG_GUARD_MS,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const { tool, masked } = JSON.parse(result.stdout) as { tool: number[]; masked: number[] };
    expect(tool[0]).toBeCloseTo(0.2, 2);
    expect(tool.at(-1)).toBeGreaterThan(0.8);
    for (let step = 1; step < tool.length; step += 1) expect(tool[step]!).toBeGreaterThan(tool[step - 1]!);
    expect(new Set(masked.map((value) => value.toFixed(6))).size).toBe(1);
  });
});
