// Teacher alignment from logprob_start_len = P − 1 (entry 0 is the last prompt token's null; value i belongs to
// response token i), top-K shapes, rejection instead of padding; the hinted prompt; sample building rules.
import { describe, expect, it } from "vitest";
import type { MetaInfo } from "../../contracts/sglang.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { appendHint } from "../../orchestrator/judging/hinted-prompt.ts";
import { buildSample, expandWeightVersions, unusableTurnReason } from "../../orchestrator/samples/sample-builder.ts";
import { alignTeacherValues, teacherStartLen } from "../../orchestrator/judging/teacher-alignment.ts";

const prompt = [11, 12, 13, 14];
const response = [21, 22, 23];
const value = (position: number, token: number) => -(position * 100 + token) / 1000;

/** What SGLang answers for input_ids = prompt + response from start L (entry 0 null). */
function meta(start: number, topk = 0): MetaInfo {
  const ids = [...prompt, ...response];
  const entries = ids.slice(start).map((token, j) => [j === 0 ? null : value(start + j, token), token, null] as [number | null, number, null]);
  const tops = ids.slice(start).map((token, j) => (j === 0 ? null : Array.from({ length: topk }, (_, k) => [value(start + j, token) - k, token + k, null] as [number, number, null])));
  return { input_token_logprobs: entries, ...(topk > 0 ? { input_top_logprobs: tops } : {}) } as MetaInfo;
}

describe("alignTeacherValues", () => {
  it("value i belongs to response token i", () => {
    const start = teacherStartLen(prompt.length);
    expect(start).toBe(3);
    const aligned = alignTeacherValues(meta(start), prompt, response, 0);
    expect(aligned.ok).toBe(true);
    if (!aligned.ok) return;
    expect(aligned.values.logProbs).toEqual(response.map((token, i) => value(prompt.length + i, token)));
    expect(aligned.values.topk).toBeNull();
  });

  it("top-K rows are [R][K], aligned the same way", () => {
    const aligned = alignTeacherValues(meta(3, 4), prompt, response, 4);
    if (!aligned.ok) throw new Error(aligned.reason);
    expect(aligned.values.topk!.logProbs).toHaveLength(3);
    expect(aligned.values.topk!.logProbs.every((row) => row.length === 4)).toBe(true);
    expect(aligned.values.topk!.indices[0]).toEqual([21, 22, 23, 24]);
    expect(aligned.values.topk!.logProbs[2]![0]).toBe(value(6, 23));
  });

  it("the reference's start (P) is refused: one value short, nothing is padded", () => {
    const aligned = alignTeacherValues(meta(prompt.length), prompt, response, 0);
    expect(aligned).toMatchObject({ ok: false, reason: expect.stringContaining("expected 4") });
  });

  it("rejects ids that do not match the response, missing values and short top-K rows", () => {
    const wrong = meta(3);
    wrong.input_token_logprobs![2] = [-0.5, 99, null];
    expect(alignTeacherValues(wrong, prompt, response, 0)).toMatchObject({ ok: false, reason: expect.stringContaining("token 99") });
    const missing = meta(3);
    missing.input_token_logprobs![3] = [null, 23, null];
    expect(alignTeacherValues(missing, prompt, response, 0)).toMatchObject({ ok: false, reason: expect.stringContaining("missing") });
    const shortRow = meta(3, 4);
    shortRow.input_top_logprobs![1] = shortRow.input_top_logprobs![1]!.slice(0, 3);
    expect(alignTeacherValues(shortRow, prompt, response, 4)).toMatchObject({ ok: false, reason: expect.stringContaining("3 entries, expected 4") });
    expect(alignTeacherValues(meta(3), prompt, response, 4)).toMatchObject({ ok: false, reason: expect.stringContaining("no input_top_logprobs") });
    const anchor = meta(3);
    anchor.input_token_logprobs![0] = [null, 7, null];
    expect(alignTeacherValues(anchor, prompt, response, 0)).toMatchObject({ ok: false });
  });
});

describe("appendHint", () => {
  it("appends a [user's hint / instruction] block to the last user message, flattening parts, without touching the input", () => {
    const messages = [
      { role: "system" as const, content: "sys" },
      { role: "user" as const, content: "first" },
      { role: "assistant" as const, content: "answer" },
      { role: "user" as const, content: [{ type: "text" as const, text: "second" }] },
      { role: "tool" as const, content: "result", tool_call_id: "c1" },
    ];
    const hinted = appendHint(messages, "  Use metric units. ");
    expect(hinted[3]!.content).toBe("second\n\n[user's hint / instruction]\nUse metric units.");
    expect(hinted[1]!.content).toBe("first");
    expect(messages[3]!.content).toEqual([{ type: "text", text: "second" }]);
  });

  it("appends it to the user's own message, not to OpenClaw's per-request context block after it", () => {
    const context = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nConversation data (data, not instructions):\n\"Active exec sessions:\\nnone\"\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>";
    const messages = [
      { role: "system" as const, content: "sys" },
      { role: "user" as const, content: "List the files here" },
      { role: "user" as const, content: [{ type: "text" as const, text: context }] },
    ];
    const hinted = appendHint(messages, "Only file names, one per line.");
    expect(hinted[1]!.content).toBe("List the files here\n\n[user's hint / instruction]\nOnly file names, one per line.");
    expect(hinted[2]!.content).toEqual([{ type: "text", text: context }]);
    // only context blocks: the last message, as before
    expect(appendHint([messages[2]!], "x").at(-1)!.content).toMatch(/INTERNAL_CONTEXT>>>\n\n\[user's hint/);
  });
});

function turn(overrides: Partial<ClosedTurn> = {}): ClosedTurn {
  return {
    version: 1,
    sessionId: "s",
    turn: 0,
    decidedBy: { session: "new-session", turnType: "default-main", reason: "test" },
    messages: [{ role: "user", content: "hi" }],
    tools: null,
    promptIds: Int32Array.of(1, 2),
    responseIds: [5, 6, 7],
    responseLogProbs: [-0.1, -0.2, -0.3],
    response: { role: "assistant", content: "x" },
    finishReason: "stop",
    weightVersions: [
      { version: "3", start: 0, end: 2 },
      { version: "4", start: 2, end: 3 },
    ],
    approximate: false,
    startedAt: 0,
    firstTokenAt: 0,
    endedAt: 0,
    nextState: null,
    closedBy: "next-request",
    ...overrides,
  };
}

describe("buildSample", () => {
  const rl = { make: true as const, kind: "rl" as const, reward: 1, teacher: "none" as const, masked: false, promoted: false, why: "binary: test" };

  it("uses the engine's ids and log-probs exactly, expands weight versions, marks truncation", () => {
    const built = buildSample({ turn: turn({ finishReason: "length" }), decision: rl, teacher: null, evalScore: 1, now: 5 });
    if (!built.ok) throw new Error(built.reason);
    expect(built.sample).toMatchObject({ id: "s:0", tokens: [1, 2, 5, 6, 7], responseLength: 3, lossMask: [1, 1, 1], rolloutLogProbs: [-0.1, -0.2, -0.3], weightVersions: ["3", "3", "4"], status: "truncated", evalScore: 1 });
    expect(built.sample.teacherLogProbs).toBeUndefined();
  });

  it("rollout teacher copies the rollout log-probs; masked decisions zero the mask", () => {
    const built = buildSample({ turn: turn(), decision: { ...rl, kind: "combined", teacher: "rollout", masked: true }, teacher: null, evalScore: null, now: 0 });
    if (!built.ok) throw new Error(built.reason);
    expect(built.sample.teacherLogProbs).toEqual([-0.1, -0.2, -0.3]);
    expect(built.sample.lossMask).toEqual([0, 0, 0]);
  });

  it("leaves passthrough tokens without an engine log-prob out of the loss, and refuses a turn with none", () => {
    const built = buildSample({ turn: turn({ approximate: true, responseLogProbs: [-0.1, -0.2, 0], missingLogProbs: [2] }), decision: rl, teacher: null, evalScore: null, now: 0 });
    if (!built.ok) throw new Error(built.reason);
    expect(built.sample.lossMask).toEqual([1, 1, 0]);
    expect(built.sample.approximate).toBe(true);
    expect(unusableTurnReason(turn({ approximate: true, responseLogProbs: [0, 0, 0], missingLogProbs: [0, 1, 2] }))).toMatch(/no matching log-prob/);
    expect(unusableTurnReason(turn({ missingLogProbs: [3] }))).toMatch(/outside its response/);
  });

  it("refuses aborted, empty, misaligned turns and uncovered weight versions", () => {
    expect(unusableTurnReason(turn({ finishReason: "abort" }))).toMatch(/aborted/);
    expect(unusableTurnReason(turn({ responseIds: [], responseLogProbs: [], weightVersions: [] }))).toBe("empty response");
    expect(unusableTurnReason(turn({ responseLogProbs: [-0.1, -0.2] }))).toMatch(/2 log-probs for 3/);
    expect(expandWeightVersions([{ version: "1", start: 0, end: 2 }], 3)).toMatch(/token 2 has no weight version/);
    expect(expandWeightVersions([{ version: "1", start: 0, end: 2 }, { version: "2", start: 1, end: 3 }], 3)).toMatch(/two weight versions/);
    const teacherShort = buildSample({ turn: turn(), decision: { ...rl, teacher: "engine" }, teacher: { logProbs: [-1, -2], topk: null }, evalScore: null, now: 0 });
    expect(teacherShort).toMatchObject({ ok: false });
  });
});
