// binary end to end against the SGLang stand-in: majority +1, ties, failed votes (500s, timeouts, unparseable),
// all votes failed (retried, then reported, never trained), the at-least-one guarantee, explicit 👍.
import { afterEach, describe, expect, it } from "vitest";
import { FAIL, HANG, makeTurn, startHarness, type Harness } from "./judge-harness.ts";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe("binary", () => {
  it("majority +1: reward 1 on every token, exact engine tokens, the judge called like SGLang expects", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 3, max_new_tokens: 512, temperature: 0.6 } });
    harness.judge.script("CASE-plus", "eval", ["<think>\nThe user moved on: \\boxed{-1}? no.\n</think>\n\nThey continued. \\boxed{1}", "\\boxed{1}", "\\boxed{-1}"]);
    const turn = await makeTurn({ marker: "CASE-plus" });
    const votes: unknown[] = [];
    harness.bus.subscribe((event) => event.type === "judge-vote" && votes.push(event));
    const judged = await harness.judgeTurn(turn);

    expect(judged).toMatchObject({ method: "binary", score: 1, skipped: null, sample: { kind: "rl", reward: 1 } });
    const sample = harness.sink.byId(`${turn.sessionId}:0`)!;
    expect(sample.tokens).toEqual([...turn.promptIds, ...turn.responseIds]);
    expect(sample.responseLength).toBe(turn.responseIds.length);
    expect(sample.rolloutLogProbs).toEqual(turn.responseLogProbs);
    expect(sample.lossMask).toEqual(turn.responseIds.map(() => 1));
    expect(sample.weightVersions.slice(0, 1)).toEqual(["7"]);
    expect(sample.weightVersions.at(-1)).toBe("8");
    expect(sample.weightVersions).toHaveLength(turn.responseIds.length);
    expect(sample).toMatchObject({ kind: "rl", reward: 1, status: "completed", evalScore: 1, approximate: false });
    expect(votes).toHaveLength(3);

    const call = harness.judge.calls[0]!;
    expect(call.request.samplingParams).toMatchObject({ temperature: 0.6, top_p: 1, top_k: -1, max_new_tokens: 512, skip_special_tokens: false, no_stop_trim: true, spaces_between_special_tokens: false });
    expect(call.request.promptText.startsWith("<|im_start|>system\n")).toBe(true);
    expect(call.request.promptText.endsWith("<|im_start|>assistant\n")).toBe(true);
    expect(call.request.promptText).toContain("[role: user]");
    expect(call.request.promptText).toContain("thanks, now 10 miles?");
    expect(call.request.promptText).not.toContain("Convert."); // the reasoning is not shown to the judge

    const [record] = await harness.records();
    expect(record).toMatchObject({ sessionId: turn.sessionId, turn: 0, method: "binary", evalScore: 1, skipped: null, sample: { id: `${turn.sessionId}:0`, kind: "rl", reward: 1, masked: false } });
    expect(record!.evaluation.votes.map((vote: { raw: string }) => vote.raw).join(" ")).toContain("They continued.");
    expect(await harness.stats()).toMatchObject({ turnsJudged: 1, votes: 3, votesFailed: 0, rewards: { positive: 1, zero: 0, negative: 0 }, samples: { rl: 1 }, lastEvalScore: 1, pending: 0 });
    expect(harness.sink.byId(`${turn.sessionId}:0`)?.evalScore).toBe(1); // (rollout/prm_eval_score comes from the sample)
  });

  it("many judge calls retrying at once: no listener-leak warning (each retry sleep listens to the pipeline's shutdown)", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 3, retries: 1, concurrency: 32 } }, { retryBackoffMs: 300 });
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const turns = await Promise.all(Array.from({ length: 6 }, (_, index) => makeTurn({ marker: `CASE-many${index}` })));
      // every turn's three first votes fail: 18 calls wait out their retry backoff at once
      for (const turn of turns) harness.judge.script(turn.sessionId.replace("session-", ""), "eval", [FAIL, FAIL, FAIL, "\\boxed{1}"]);
      const judged = await Promise.all(turns.map((turn) => harness!.judgeTurn(turn)));
      for (const event of judged) expect(event).toMatchObject({ score: 1 });
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((warning) => warning.includes("MaxListeners"))).toEqual([]);
  });

  it("a tie is 0; the first judged turn of a session is kept (at-least-one), later zeros are masked", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 3, retries: 1 } });
    harness.judge.script("CASE-tie", "eval", ["\\boxed{1}", "\\boxed{-1}", FAIL, FAIL]);
    const first = await makeTurn({ marker: "CASE-tie", sessionId: "s-tie", turn: 0 });
    await harness.judgeTurn(first);
    const second = await makeTurn({ marker: "CASE-tie", sessionId: "s-tie", turn: 1 });
    harness.judge.script("CASE-tie", "eval", ["\\boxed{0}"]);
    await harness.judgeTurn(second);
    const promoted = harness.sink.byId("s-tie:0")!;
    expect(promoted).toMatchObject({ reward: 0, why: expect.stringContaining("at-least-one") });
    expect(promoted.lossMask.every((bit) => bit === 1)).toBe(true);
    const masked = harness.sink.byId("s-tie:1")!;
    expect(masked.reward).toBe(0);
    expect(masked.lossMask.every((bit) => bit === 0)).toBe(true);

    const [tieRecord] = await harness.records();
    expect(tieRecord!.evaluation).toMatchObject({ score: 0, valid: 2, failed: 1, counts: { "1": 1, "-1": 1 } });
    const failedVote = tieRecord!.evaluation.votes.find((vote: { score: number | null }) => vote.score === null);
    expect(failedVote).toMatchObject({ attempts: 2, raw: "", error: expect.stringContaining("500") });
    expect(await harness.stats()).toMatchObject({ votesFailed: 1, masked: 1, rewards: { zero: 2 } });
  });

  it("timeouts and unparseable answers are no votes, not zeros", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 3, retries: 0, timeout_s: 0.4 } });
    harness.judge.script("CASE-partial", "eval", ["I cannot decide.", HANG, "\\boxed{-1}"]);
    const turn = await makeTurn({ marker: "CASE-partial" });
    const judged = await harness.judgeTurn(turn);
    expect(judged).toMatchObject({ score: -1, sample: { reward: -1 } });
    const [record] = await harness.records();
    const errors = record!.evaluation.votes.map((vote: { error: string | null }) => vote.error);
    expect(errors).toEqual(expect.arrayContaining([expect.stringContaining("TIMEOUT"), expect.stringContaining("no \\boxed"), null]));
    expect(record!.evaluation).toMatchObject({ valid: 1, failed: 2 });
  });

  it("all votes failed: judged again once, then reported (error event + record), no sample even for a fresh session", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 2, retries: 0 } });
    harness.judge.script("CASE-down", "eval", [FAIL]);
    const errors: unknown[] = [];
    harness.bus.subscribe((event) => event.type === "error" && errors.push(event));
    const turn = await makeTurn({ marker: "CASE-down" });
    const judged = await harness.judgeTurn(turn);
    expect(judged).toMatchObject({ sample: null, score: null, skipped: expect.stringContaining("every evaluation vote failed") });
    expect(harness.judge.callsFor("CASE-down")).toBe(4);
    expect(harness.sink.samples).toHaveLength(0);
    expect(errors).toEqual([expect.objectContaining({ source: "judge", code: "JUDGE_FAILED" })]);
    const [record] = await harness.records();
    expect(record).toMatchObject({ attempt: 2, sample: null, evalScore: null, evaluation: { score: null, valid: 0, failed: 2 } });
    expect(await harness.stats()).toMatchObject({ judgeFailures: 1, skipped: { "judge-failed": 1 }, samples: { rl: 0 } });
  });

  it("all votes failed once, then the later retry succeeds", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 2, retries: 0 } });
    harness.judge.script("CASE-flaky", "eval", [FAIL, FAIL, "\\boxed{1}"]);
    const turn = await makeTurn({ marker: "CASE-flaky" });
    await harness.judgeTurn(turn);
    expect(harness.sink.byId(`${turn.sessionId}:0`)).toMatchObject({ reward: 1 });
    const [record] = await harness.records();
    expect(record).toMatchObject({ attempt: 2, evaluation: { valid: 2 } });
  });

  it("explicit 👍 / 👎 scores without the judge; no next state → masked; aborted and empty turns never become samples", async () => {
    harness = await startHarness({ method: "binary" });
    const up = await makeTurn({ marker: "CASE-up", next: "[Sun 2026-11-22 06:27 UTC] 👍" });
    const down = await makeTurn({ marker: "CASE-down2", next: "thumbs down" });
    const last = await makeTurn({ marker: "CASE-last", next: null });
    const aborted = await makeTurn({ marker: "CASE-abort", finishReason: "abort" });
    const empty = { ...(await makeTurn({ marker: "CASE-empty" })), responseIds: [], responseLogProbs: [], weightVersions: [] };
    for (const turn of [up, down, last, aborted, empty]) await harness.judgeTurn(turn);
    expect(harness.judge.calls).toHaveLength(0);
    expect(harness.sink.byId(`${up.sessionId}:0`)).toMatchObject({ reward: 1, why: "binary: explicit feedback +1", evalScore: 1 });
    expect(harness.sink.byId(`${down.sessionId}:0`)).toMatchObject({ reward: -1 });
    const lastSample = harness.sink.byId(`${last.sessionId}:0`)!;
    expect(lastSample.lossMask.every((bit) => bit === 0)).toBe(true);
    expect(harness.sink.byId(`${aborted.sessionId}:0`)).toBeUndefined();
    expect(harness.sink.byId(`${empty.sessionId}:0`)).toBeUndefined();
    const records = await harness.records();
    expect(records.find((record) => record.sessionId === up.sessionId)).toMatchObject({ explicit: { score: 1, source: "message" }, evaluation: null });
    expect(records.find((record) => record.sessionId === aborted.sessionId)).toMatchObject({ sample: null, skipped: expect.stringContaining("aborted") });
    expect((await harness.stats()).skipped).toMatchObject({ aborted: 1, "empty-response": 1 });
  });

  it("a truncated generation (finish length) becomes a truncated sample when the gate lets it through", async () => {
    harness = await startHarness({ method: "binary", training: { sample_gate: { drop_truncated: false } } });
    const turn = await makeTurn({ marker: "CASE-len", next: "+1", finishReason: "length" });
    await harness.judgeTurn(turn);
    expect(harness.sink.byId(`${turn.sessionId}:0`)).toMatchObject({ status: "truncated", reward: 1 });
  });
});
