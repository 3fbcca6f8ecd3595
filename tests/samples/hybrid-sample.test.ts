// The hybrid's Sample: the turn's own record with one candidate per kept hint, each the hinted prompt rendered with the
// policy's chat template (Qwen3's, the real files) and tokenized, followed by the response's exact ids, never a
// re-tokenization of prompt text + response text.
import { describe, expect, it } from "vitest";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { hintedPromptIds } from "../../orchestrator/judging/hinted-prompt.ts";
import { dispatchHybrid, type HybridDispatch } from "../../orchestrator/samples/hybrid-dispatch.ts";
import { buildHybridSample } from "../../orchestrator/samples/hybrid-sample.ts";

const SETTINGS = { minHintChars: 10, maxCandidates: 3, fallbackToUnenhanced: true };
const MESSAGES = [{ role: "user" as const, content: "Plan my week, please." }];

async function qwen3(): Promise<{ template: ChatTemplate; tokenizer: ModelTokenizer }> {
  const files = await loadTokenizerFiles("builtin:qwen3");
  return { template: new ChatTemplate(files), tokenizer: new ModelTokenizer(files) };
}

async function turnOf(tokenizer: ModelTokenizer, template: ChatTemplate): Promise<ClosedTurn> {
  const promptIds = await tokenizer.encode(template.render(MESSAGES, { tools: null, addGenerationPrompt: true }));
  // "Sure" sampled as "S" + "ure": ids a tokenizer would never give for the text "Sure"
  const responseIds = [...(await tokenizer.encode("S")), ...(await tokenizer.encode("ure")), ...(await tokenizer.encode(".<|im_end|>"))];
  return {
    version: 1,
    sessionId: "s",
    turn: 2,
    decidedBy: { session: "new-session", turnType: "default-main", reason: "test" },
    messages: MESSAGES,
    tools: null,
    promptIds: Int32Array.from(promptIds),
    responseIds,
    responseLogProbs: responseIds.map(() => -0.25),
    response: { role: "assistant", content: "Sure." },
    finishReason: "stop",
    weightVersions: [{ version: "7", start: 0, end: responseIds.length }],
    approximate: false,
    startedAt: 0,
    firstTokenAt: 0,
    endedAt: 0,
    nextState: { role: "user", messages: [{ role: "user", content: "Use a table next time." }], text: "Use a table next time." },
    closedBy: "next-request",
  };
}

function made(dispatch: HybridDispatch): Extract<HybridDispatch, { make: true }> {
  if (!dispatch.make) throw new Error(dispatch.reason);
  return dispatch;
}

describe("buildHybridSample", () => {
  it("hint and evaluation: kind hybrid, reward = evaluation, one candidate per hint = its hinted prompt's ids + the response's exact ids", async () => {
    const { template, tokenizer } = await qwen3();
    const turn = await turnOf(tokenizer, template);
    const dispatch = made(dispatchHybrid([{ score: 1, hint: "Answer with a markdown table." }, { score: 1, hint: "Use a table." }], -1, SETTINGS));
    const hinted = await Promise.all(dispatch.hints.map((hint) => hintedPromptIds(turn.messages, turn.tools, hint, template, tokenizer)));
    const built = buildHybridSample({ turn, dispatch, hintedPrompts: hinted, evalScore: -1, now: 5 });
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    const sample = built.sample;
    expect(sample).toMatchObject({ kind: "hybrid", reward: -1, responseLength: turn.responseIds.length, evalScore: -1, why: "hybrid: 2 hints of 2 votes + evaluation -1" });
    expect(sample.tokens).toEqual([...turn.promptIds, ...turn.responseIds]);
    expect(sample.hintCandidates).toEqual(hinted.map((prompt) => [...prompt, ...turn.responseIds]));
    expect(template.render([{ role: "user", content: "Plan my week, please.\n\n[user's hint / instruction]\nUse a table." }], { tools: null, addGenerationPrompt: true })).toBe(
      tokenizer.decode(hinted[0]!),
    );
    for (const candidate of sample.hintCandidates!) expect(candidate.slice(-sample.responseLength)).toEqual(sample.tokens.slice(-sample.responseLength));
    // the reference's way (the hinted text + the response text, tokenized again) would not give the sampled ids
    const retokenized = await tokenizer.encode((tokenizer.decode(hinted[0]!)) + "Sure.<|im_end|>");
    expect(retokenized).not.toEqual(sample.hintCandidates![0]);
    expect(sample.teacherLogProbs).toBeUndefined();
    expect(sample.teacherTokens).toBeUndefined();
  });

  it("evaluation only: one candidate, the un-enhanced prompt + response (= tokens)", async () => {
    const { template, tokenizer } = await qwen3();
    const turn = await turnOf(tokenizer, template);
    const fallback = buildHybridSample({ turn, dispatch: made(dispatchHybrid([], 1, SETTINGS)), hintedPrompts: [], evalScore: 1, now: 5 });
    expect(fallback.ok && fallback.sample.hintCandidates).toEqual([fallback.ok ? fallback.sample.tokens : []]);
    expect(fallback.ok && fallback.sample.reward).toBe(1);
  });

  it("refuses instead of guessing: a hinted prompt missing or empty, or a turn no sample can come from", async () => {
    const { template, tokenizer } = await qwen3();
    const turn = await turnOf(tokenizer, template);
    const dispatch = made(dispatchHybrid([{ score: 1, hint: "Answer with a markdown table." }], 0, SETTINGS));
    expect(buildHybridSample({ turn, dispatch, hintedPrompts: [], evalScore: 0, now: 5 })).toEqual({ ok: false, reason: "0 hinted prompts for 1 kept hints" });
    expect(buildHybridSample({ turn, dispatch, hintedPrompts: [[]], evalScore: 0, now: 5 })).toEqual({ ok: false, reason: "hint candidate 0 has an empty prompt" });
    expect(buildHybridSample({ turn: { ...turn, finishReason: "abort" }, dispatch, hintedPrompts: [[1]], evalScore: 0, now: 5 })).toEqual({ ok: false, reason: "the generation was aborted (finish reason abort)" });
  });
});
