// Pins what one closed turn leaves behind: its judgement record, its sample and its events, for binary, opd, combine, hybrid,
// a turn that makes no sample, and an episode step. The pins were written at df70e26, before judging was reshaped to
// return values, and must not move (hybrid's was written with its wiring): only timestamps and timings are blanked, long id and log-prob arrays hashed.
import { createHash } from "node:crypto";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../contracts/events.ts";
import type { RecipeInput } from "../../contracts/recipe.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { FAIL, makeTurn, startHarness, type Harness } from "./judge-harness.ts";

const PINS = path.join(import.meta.dirname, "../fixtures/judging/closed-turn-pins");

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/**
 * Timestamps, timings and the stand-in's port blanked; number arrays longer than 8 as their length and a hash (the
 * pin stays readable).
 */
function pinned(value: unknown, key = ""): unknown {
  if (["at", "createdAt", "answeredAt", "closedAt", "ms"].includes(key) && typeof value === "number") return 0;
  if (typeof value === "string") return value.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT");
  if (Array.isArray(value)) {
    if (value.length > 8 && value.flat().every((item) => typeof item === "number")) {
      return { length: value.length, sha256: createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16) };
    }
    return value.map((item) => pinned(item));
  }
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, pinned(item, name)]));
  return value;
}

/** Judges the turns (each after the one before it is announced) and pins the records, samples and events they made. */
async function pin(h: Harness, name: string, judge: () => Promise<void>): Promise<void> {
  const events: RunEvent[] = [];
  h.bus.subscribe((event) => void events.push(event));
  await judge();
  // votes arrive in any order: they are pinned sorted; every other event in the order it came
  const votes = events.filter((event) => event.type === "judge-vote").map((event) => JSON.stringify(pinned(event))).sort();
  const others = events.filter((event) => event.type !== "judge-vote").map((event) => pinned(event));
  const text = `${JSON.stringify({ records: pinned(await h.records()), samples: pinned(h.sink.samples), events: others, votes: votes.map((vote) => JSON.parse(vote)) }, null, 2)}\n`;
  await expect(text).toMatchFileSnapshot(path.join(PINS, `${name}.json`));
}

async function judgeAll(h: Harness, ...turns: ClosedTurn[]): Promise<void> {
  for (const turn of turns) await h.judgeTurn(turn);
}

async function chat(recipe: RecipeInput): Promise<Harness> {
  harness = await startHarness({ judge: { votes: 3 }, sampling: { temperature: 1 }, ...recipe });
  return harness;
}

describe("a closed turn's record, sample and events stay as pinned", () => {
  it("binary: a majority sample, a score-0 turn kept by the at-least-one guarantee, then one masked", async () => {
    const h = await chat({ method: "binary" });
    h.judge.script("CASE-plus", "eval", ["\\boxed{1}", "\\boxed{1}", "\\boxed{-1}"]);
    h.judge.script("CASE-zero", "eval", ["\\boxed{0}"]);
    await pin(h, "binary", async () =>
      judgeAll(h, await makeTurn({ marker: "CASE-plus" }), await makeTurn({ marker: "CASE-zero", sessionId: "s-zero", turn: 0 }), await makeTurn({ marker: "CASE-zero", sessionId: "s-zero", turn: 1 })),
    );
  });

  it("binary: every vote failed (no sample, reported), a turn without a next state, an aborted turn", async () => {
    const h = await chat({ method: "binary" });
    h.judge.script("CASE-fail", "eval", [FAIL]);
    await pin(h, "binary-no-sample", async () =>
      judgeAll(h, await makeTurn({ marker: "CASE-fail" }), await makeTurn({ marker: "CASE-last", next: null, sessionId: "s-last" }), await makeTurn({ marker: "CASE-cut", sessionId: "s-cut", finishReason: "abort" })),
    );
  });

  it("the sample gate: a truncated chat turn, and a truncated episode step beside a trained one", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 1 }, episodes: { samples_per_task: 1 } });
    const h = harness;
    h.judge.script("CASE-ok", "eval", ["\\boxed{1}"]);
    await pin(h, "gated", async () => {
      await judgeAll(h, await makeTurn({ marker: "CASE-cut", finishReason: "length" }));
      const cut = await makeTurn({ sessionId: "e:2", turn: 0, marker: "CASE-cutstep", next: "observation", nextRole: "tool", finishReason: "length" });
      const ok = await makeTurn({ sessionId: "e:2", turn: 1, marker: "CASE-ok", next: "observation", nextRole: "tool" });
      const judged = [h.nextJudged("e:2", 0), h.nextJudged("e:2", 1)];
      h.pipeline.onTurnClosed({ ...cut, episode: { id: "e:2", groupId: "g:2" } });
      h.pipeline.onTurnClosed({ ...ok, episode: { id: "e:2", groupId: "g:2" } });
      await new Promise((resolve) => setTimeout(resolve, 200));
      h.bus.emit({ type: "episode-end", episodeId: "e:2", groupId: "g:2", score: 1, failure: null, steps: 2, weightVersion: "8" });
      await Promise.all(judged);
    });
  });

  it("opd: the longest positive hint, the teacher scored by the engine", async () => {
    const h = await chat({ method: "opd" });
    h.judge.script("CASE-opd", "hint", ["\\boxed{1} [HINT_START]Use metric units![HINT_END]", "\\boxed{1} [HINT_START]Say km.[HINT_END]", "\\boxed{-1}"]);
    h.judge.script("CASE-nohint", "hint", ["\\boxed{-1}"]);
    await pin(h, "opd", async () => judgeAll(h, await makeTurn({ marker: "CASE-opd" }), await makeTurn({ marker: "CASE-nohint", sessionId: "s-nohint" })));
  });

  it("combine: hint and evaluation, evaluation alone (rollout teacher), and explicit feedback", async () => {
    const h = await chat({ method: "combine" });
    h.judge.script("CASE-both", "eval", ["\\boxed{-1}"]);
    h.judge.script("CASE-both", "hint", ["\\boxed{1} [HINT_START]Use metric units![HINT_END]"]);
    h.judge.script("CASE-eval", "eval", ["\\boxed{1}"]);
    h.judge.script("CASE-eval", "hint", ["\\boxed{-1}"]);
    h.judge.script("CASE-thumb", "hint", ["\\boxed{1} [HINT_START]Give both units.[HINT_END]"]);
    await pin(h, "combine", async () =>
      judgeAll(
        h,
        await makeTurn({ marker: "CASE-both" }),
        await makeTurn({ marker: "CASE-eval", sessionId: "s-eval" }),
        await makeTurn({ marker: "CASE-thumb", sessionId: "s-thumb", next: "👍" }),
      ),
    );
  });

  it("hybrid: every kept hint a candidate (token-exact), and each dispatch case", async () => {
    const h = await chat({ method: "hybrid", hybrid: { hint_votes: 3, eval_votes: 2 } });
    h.judge.script("CASE-hy", "hint", ["\\boxed{1} [HINT_START]Use metric units everywhere.[HINT_END]", "\\boxed{1} [HINT_START]Say km.[HINT_END]", "\\boxed{1} [HINT_START]Give distances in km.[HINT_END]"]);
    h.judge.script("CASE-hy", "eval", ["\\boxed{-1}"]);
    h.judge.script("CASE-hyeval", "hint", ["\\boxed{-1}"]);
    h.judge.script("CASE-hyeval", "eval", ["\\boxed{1}"]);
    h.judge.script("CASE-hyhint", "hint", ["\\boxed{1} [HINT_START]Give distances in km.[HINT_END]"]);
    h.judge.script("CASE-hyhint", "eval", ["\\boxed{0}"]);
    h.judge.script("CASE-hynone", "hint", ["\\boxed{-1}"]);
    h.judge.script("CASE-hynone", "eval", ["\\boxed{0}"]);
    const turns = [
      await makeTurn({ marker: "CASE-hy" }),
      await makeTurn({ marker: "CASE-hyeval", sessionId: "s-hyeval" }),
      await makeTurn({ marker: "CASE-hyhint", sessionId: "s-hyhint" }),
      await makeTurn({ marker: "CASE-hynone", sessionId: "s-hynone" }),
    ];
    await pin(h, "hybrid", async () => judgeAll(h, ...turns));
    expect([h.judge.callsFor("CASE-hy", "hint"), h.judge.callsFor("CASE-hy", "eval")]).toEqual([3, 2]);
    const [both, evalOnly, hintOnly] = h.sink.samples;
    expect([both!.kind, both!.reward, hintOnly!.reward, evalOnly!.reward]).toEqual(["hybrid", -1, 0, 1]);
    // shortest hint first, the too-short one dropped; each candidate = a hinted prompt + the response's exact ids
    expect(both!.hintCandidates!.length).toBe(2);
    for (const candidate of both!.hintCandidates!) expect(candidate.slice(-both!.responseLength)).toEqual(turns[0]!.responseIds);
    const records = (await h.records()) as Array<{ hybrid?: { case: string; hints: string[]; candidates: number } }>;
    expect(records.map((record) => record.hybrid)).toEqual([
      { case: "hint-and-evaluation", hints: ["Give distances in km.", "Use metric units everywhere."], candidates: 2 },
      { case: "evaluation-only", hints: [], candidates: 1 },
      { case: "hint-only", hints: ["Give distances in km."], candidates: 1 },
      { case: "neither", hints: [], candidates: 0 },
    ]);
    expect(evalOnly!.hintCandidates).toEqual([[...turns[1]!.promptIds, ...turns[1]!.responseIds]]);
    expect(h.sink.samples.length).toBe(3);
  });

  it("an episode step: judged, held until its episode's outcome, then trained with its reward and advantage", async () => {
    harness = await startHarness({ judge: { votes: 2 }, episodes: { samples_per_task: 1, prm_step_coef: 0.5 } });
    const h = harness;
    h.judge.script("CASE-step", "eval", ["\\boxed{1}", "\\boxed{-1}"]);
    await pin(h, "episode-step", async () => {
      const first = await makeTurn({ sessionId: "e:1", turn: 0, marker: "CASE-step", next: "observation: 5", nextRole: "tool" });
      const last = await makeTurn({ sessionId: "e:1", turn: 1, marker: "CASE-answer", next: null, nextRole: "tool" });
      const judged = [h.nextJudged("e:1", 0), h.nextJudged("e:1", 1)];
      h.pipeline.onTurnClosed({ ...first, episode: { id: "e:1", groupId: "g:1" } });
      h.pipeline.onTurnClosed({ ...last, episode: { id: "e:1", groupId: "g:1" } });
      await new Promise((resolve) => setTimeout(resolve, 200)); // both judged (no sample before the outcome)
      h.bus.emit({ type: "episode-end", episodeId: "e:1", groupId: "g:1", score: 1, failure: null, steps: 2, weightVersion: "8" });
      await Promise.all(judged);
    });
  });
});
