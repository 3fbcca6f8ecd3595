// opd and combine end to end against the SGLang stand-in: hint choice, teacher scoring of the SAME response ids
// under the hinted prompt with value i belonging to token i, top-K rows, and every combine branch.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { hintedPromptIds } from "../../orchestrator/judging/hinted-prompt.ts";
import { FAIL, makeTurn, startHarness, teacherValue, type Harness } from "./judge-harness.ts";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const HINT_11 = "Use metric!"; // 11 characters
const HINT_10 = "Use metric"; // 10 characters

describe("opd", () => {
  it("keeps the longest positive hint and scores the same response ids under the hinted prompt, value i for token i", async () => {
    // rollout temperature 1: the teacher is scored at 1 too, by one prefill request (teacher-temperature.test.ts has the others)
    harness = await startHarness({ method: "opd", judge: { votes: 3 }, sampling: { temperature: 1 } });
    harness.judge.script("CASE-opd", "hint", [
      `\\boxed{1} [HINT_START]${HINT_10}[HINT_END]`,
      `<think>the user wants km</think>[HINT_START]${HINT_11}[HINT_END] \\boxed{1}`,
      "[HINT_START]a rejected but very long hint text[HINT_END] \\boxed{-1}",
    ]);
    const turn = await makeTurn({ marker: "CASE-opd" });
    const judged = await harness.judgeTurn(turn);
    expect(judged).toMatchObject({ method: "opd", hintAccepted: true, sample: { kind: "opd", reward: 1 } });

    const expectedPrompt = await hintedPromptIds(turn.messages, turn.tools, HINT_11, harness.template, harness.tokenizer);
    const scored = harness.judge.scored.at(-1)!;
    expect([...scored.inputIds]).toEqual([...expectedPrompt, ...turn.responseIds]);
    expect(scored.promptText).toContain(`[user's hint / instruction]\n${HINT_11}<|im_end|>`);

    const sample = harness.sink.byId(`${turn.sessionId}:0`)!;
    const P = expectedPrompt.length;
    expect(sample.teacherLogProbs).toEqual(turn.responseIds.map((token, i) => teacherValue(P + i, token)));
    expect(sample.teacherLogProbs![0]).not.toBe(0); // the reference's first-token 0.0 is gone
    expect(sample.tokens).toEqual([...turn.promptIds, ...turn.responseIds]); // the sample keeps the ORIGINAL prompt
    expect(sample.teacherTopkLogProbs).toBeUndefined();

    const [record] = await harness.records();
    expect(record).toMatchObject({
      hint: { kept: HINT_11, fromVote: expect.any(Number) },
      teacher: { ok: true, promptLength: P, logprobStartLen: P - 1, topk: 0, promptReproduced: true, temperature: 1, scoring: "prefill", requests: 1 },
      sample: { kind: "opd" },
    });
    expect(await harness.stats()).toMatchObject({ hints: { accepted: 1, rejected: 0 }, samples: { opd: 1 } });
  });

  it("no hint (exactly 10 characters, or negative votes) → no sample, with the reason", async () => {
    harness = await startHarness({ method: "opd", judge: { votes: 2 } });
    harness.judge.script("CASE-short", "hint", [`\\boxed{1} [HINT_START]${HINT_10}[HINT_END]`]);
    harness.judge.script("CASE-neg", "hint", ["\\boxed{-1}"]);
    const short = await makeTurn({ marker: "CASE-short" });
    const negative = await makeTurn({ marker: "CASE-neg" });
    expect(await harness.judgeTurn(short)).toMatchObject({ sample: null, hintAccepted: false, skipped: expect.stringContaining("longer than 10 characters") });
    expect(await harness.judgeTurn(negative)).toMatchObject({ sample: null, skipped: expect.stringContaining("no vote found a hint") });
    expect(harness.judge.scored).toHaveLength(0);
    expect(harness.sink.samples).toHaveLength(0);
    expect(await harness.stats()).toMatchObject({ hints: { accepted: 0, rejected: 2 }, skipped: { "no-hint": 2 } });
  });

  it("records when the turn's prompt cannot be reproduced by re-rendering (template options the turn does not carry)", async () => {
    harness = await startHarness({ method: "opd", judge: { votes: 1 } });
    harness.judge.script("CASE-kwargs", "hint", [`\\boxed{1} [HINT_START]${HINT_11}[HINT_END]`]);
    const turn = await makeTurn({ marker: "CASE-kwargs" });
    const rendered = harness.template.render(turn.messages, { addGenerationPrompt: true, extra: { enable_thinking: false } });
    await harness.judgeTurn({ ...turn, promptIds: Int32Array.from(await harness.tokenizer.encode(rendered)) });
    const [record] = await harness.records();
    expect(record).toMatchObject({ sample: { kind: "opd" }, teacher: { ok: true, promptReproduced: false } });
  });

  it("renders the hinted prompt with the turn's chat_template_kwargs, so the teacher sees the same template options", async () => {
    harness = await startHarness({ method: "opd", judge: { votes: 1 } });
    harness.judge.script("CASE-kw-carried", "hint", [`\\boxed{1} [HINT_START]${HINT_11}[HINT_END]`]);
    const turn = await makeTurn({ marker: "CASE-kw-carried" });
    const templateKwargs = { enable_thinking: false };
    const rendered = harness.template.render(turn.messages, { addGenerationPrompt: true, extra: templateKwargs });
    await harness.judgeTurn({ ...turn, templateKwargs, promptIds: Int32Array.from(await harness.tokenizer.encode(rendered)) });
    const [record] = await harness.records();
    expect(record).toMatchObject({ sample: { kind: "opd" }, teacher: { ok: true, promptReproduced: true } });
    const scored = harness.judge.scored.at(-1)!;
    expect(scored.promptText).toContain(`${HINT_11}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`);
  });

  it("top-K: [R][K] teacher rows aligned with the response tokens", async () => {
    harness = await startHarness({ method: "opd", judge: { votes: 1 }, opd: { topk: 5 } });
    harness.judge.script("CASE-topk", "hint", [`\\boxed{1} [HINT_START]${HINT_11}[HINT_END]`]);
    const turn = await makeTurn({ marker: "CASE-topk" });
    await harness.judgeTurn(turn);
    const sample = harness.sink.byId(`${turn.sessionId}:0`)!;
    const R = turn.responseIds.length;
    expect(sample.teacherTopkLogProbs).toHaveLength(R);
    expect(sample.teacherTopkIndices).toHaveLength(R);
    expect(sample.teacherTopkLogProbs!.every((row) => row.length === 5)).toBe(true);
    expect(sample.teacherTopkIndices!.every((row) => row.length === 5 && row.every(Number.isInteger))).toBe(true);
    for (let i = 0; i < R; i += 1) {
      const row = sample.teacherTopkLogProbs![i]!;
      expect([...row].sort((a, b) => b - a)).toEqual(row);
      // the stand-in ranks the actual token by its log-prob: when it is in the row, its value is the token's own
      const at = sample.teacherTopkIndices![i]!.indexOf(turn.responseIds[i]!);
      if (at >= 0) expect(row[at]).toBe(sample.teacherLogProbs![i]);
    }
    expect(sample.teacherTopkIndices!.some((row, i) => row.includes(turn.responseIds[i]!))).toBe(true);
  });
});

describe("combine: at most one sample per turn", () => {
  it("runs both vote sets and takes each branch of the table", async () => {
    harness = await startHarness({ method: "combine", judge: { votes: 1 } });
    const hint = `\\boxed{1} [HINT_START]${HINT_11}[HINT_END]`;
    harness.judge.script("CASE-both", "hint", [hint]);
    harness.judge.script("CASE-both", "eval", ["\\boxed{-1}"]);
    harness.judge.script("CASE-hintonly", "hint", [hint]);
    harness.judge.script("CASE-hintonly", "eval", ["\\boxed{0}"]);
    harness.judge.script("CASE-evalonly", "hint", ["\\boxed{-1}"]);
    harness.judge.script("CASE-evalonly", "eval", ["\\boxed{1}"]);
    harness.judge.script("CASE-neither", "hint", ["\\boxed{-1}"]);
    harness.judge.script("CASE-neither", "eval", ["\\boxed{0}"]);
    const turns = await Promise.all(["CASE-both", "CASE-hintonly", "CASE-evalonly", "CASE-neither"].map((marker) => makeTurn({ marker })));
    await Promise.all(turns.map((turn) => harness!.judgeTurn(turn)));

    const [both, hintOnly, evalOnly, neither] = turns.map((turn) => harness!.sink.byId(`${turn.sessionId}:0`));
    expect(both).toMatchObject({ kind: "combined", reward: -1, evalScore: -1 });
    expect(both!.teacherLogProbs).not.toEqual(both!.rolloutLogProbs);
    expect(hintOnly).toMatchObject({ kind: "combined", reward: 0, evalScore: 0 });
    expect(evalOnly).toMatchObject({ kind: "combined", reward: 1 });
    expect(evalOnly!.teacherLogProbs).toEqual(evalOnly!.rolloutLogProbs);
    expect(neither).toBeUndefined();
    for (const marker of ["CASE-both", "CASE-hintonly", "CASE-evalonly", "CASE-neither"]) {
      expect(harness.judge.callsFor(marker, "hint")).toBe(1);
      expect(harness.judge.callsFor(marker, "eval")).toBe(1);
    }
    const records = await harness.records();
    expect(records.filter((record) => record.teacher !== null)).toHaveLength(2);
    expect(harness.sink.samples.every((sample) => sample.teacherLogProbs?.length === sample.responseLength)).toBe(true);
    expect(records.find((record) => record.sessionId === "session-CASE-neither")).toMatchObject({ sample: null, skipped: expect.stringContaining("no hint") });
    const scores = harness.sink.samples.map((sample) => sample.evalScore).filter((score): score is number => typeof score === "number");
    expect(scores.reduce((sum, score) => sum + score, 0) / scores.length).toBeCloseTo(0);
  });

  it("a vote set that all failed leaves the other set's signal; both failed makes no sample (never a neutral one)", async () => {
    harness = await startHarness({ method: "combine", judge: { votes: 1, retries: 0 } }, { turnRetries: 0 });
    harness.judge.script("CASE-evalfail", "hint", [`\\boxed{1} [HINT_START]${HINT_11}[HINT_END]`]);
    harness.judge.script("CASE-evalfail", "eval", [FAIL]);
    expect(await harness.judgeTurn(await makeTurn({ marker: "CASE-evalfail" }))).toMatchObject({ sample: { kind: "combined", reward: 0 } });
    const hintOnly = harness.sink.samples.find((sample) => sample.sessionId === "session-CASE-evalfail")!;
    expect(hintOnly.teacherLogProbs).toHaveLength(hintOnly.responseLength);
    expect(hintOnly.teacherLogProbs).not.toEqual(hintOnly.rolloutLogProbs);
    harness.judge.script("CASE-hintfail", "hint", ["Nothing new here. \\boxed{0}"]);
    harness.judge.script("CASE-hintfail", "eval", ["\\boxed{1}"]);
    expect(await harness.judgeTurn(await makeTurn({ marker: "CASE-hintfail" }))).toMatchObject({ sample: { kind: "combined", reward: 1 } });
    const evalOnly = harness.sink.samples.find((sample) => sample.sessionId === "session-CASE-hintfail")!;
    expect(evalOnly.teacherLogProbs).toEqual(evalOnly.rolloutLogProbs);
    harness.judge.script("CASE-bothfail", "hint", [FAIL]);
    harness.judge.script("CASE-bothfail", "eval", [FAIL]);
    expect(await harness.judgeTurn(await makeTurn({ marker: "CASE-bothfail" }))).toMatchObject({ sample: null, skipped: "judge failed: every evaluation and hint vote failed" });
  });

  it("a teacher answer one value short (an engine that scores from P) is rejected, not padded", async () => {
    // a raw engine at the edge: judge votes in text mode, and prefill answers that drop one leading entry
    const engine = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        const parsed = JSON.parse(body) as { text?: string; input_ids?: number[]; logprob_start_len?: number };
        const meta: Record<string, unknown> = { finish_reason: { type: "stop" } };
        let text = parsed.text?.includes("hindsight") ? `\\boxed{1} [HINT_START]${HINT_11}[HINT_END]` : "\\boxed{1}";
        if (parsed.input_ids) {
          const start = parsed.logprob_start_len! + 1; // one entry fewer than asked for
          meta.input_token_logprobs = parsed.input_ids.slice(start).map((id, j) => [j === 0 ? null : -0.5, id, null]);
          text = "";
        }
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ text, output_ids: [], meta_info: meta }));
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
    harness = await startHarness({ method: "combine", judge: { votes: 1 }, sampling: { temperature: 1 } }, { judge: new SglangClient({ baseUrl: url }) });
    try {
      const turn = await makeTurn({ marker: "CASE-badteacher" });
      const judged = await harness.judgeTurn(turn);
      expect(judged).toMatchObject({ sample: null, skipped: expect.stringContaining("teacher scoring rejected") });
      const [record] = await harness.records();
      expect(record).toMatchObject({ teacher: { ok: false, reason: expect.stringContaining(`expected ${turn.responseIds.length + 1}`) }, evalScore: 1 });
      expect((await harness.stats()).skipped).toMatchObject({ "teacher-failed": 1 });
    } finally {
      engine.closeAllConnections();
      await new Promise((resolve) => engine.close(resolve));
    }
  });
});
