// Episode steps in the judge pipeline: each step's score is the mean of the judge's valid votes on its next state;
// the samples wait for the episode's outcome and the task group; then r_t = o + c·p_t, standardised per (group,
// step index) bucket, one sample per step with its episode fields, and a judgement record per step that shows the
// arithmetic. Also a failed episode, a constant bucket, and a group settled short at drain.
import { afterEach, describe, expect, it } from "vitest";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { makeTurn, startHarness, type Harness } from "../judging/judge-harness.ts";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function step(episodeId: string, groupId: string, turn: number, marker: string, next: string | null): Promise<ClosedTurn> {
  const closed = await makeTurn({ sessionId: episodeId, turn, marker, next, nextRole: "tool" });
  return { ...closed, episode: { id: episodeId, groupId } };
}

function end(h: Harness, episodeId: string, groupId: string, score: number | null, steps: number, failure: string | null = null) {
  h.bus.emit({ type: "episode-end", episodeId, groupId, score, failure, steps, weightVersion: "8" });
}

async function until(check: () => boolean, ms = 8000): Promise<void> {
  for (let waited = 0; !check() && waited < ms; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("episode steps in the judge pipeline", () => {
  it("a group of two episodes: step scores, rewards, bucket-standardised advantages, one sample per step", async () => {
    harness = await startHarness({ judge: { votes: 2 }, episodes: { samples_per_task: 2, prm_step_coef: 1 } });
    const h = harness;
    h.judge.script("CASE-A0", "eval", ["\\boxed{1}", "\\boxed{1}"]); // p = 1
    h.judge.script("CASE-B0", "eval", ["\\boxed{1}", "\\boxed{-1}"]); // p = 0
    const turns = [
      await step("t:u:0:0", "t:u:0", 0, "CASE-A0", "observation: 5"),
      await step("t:u:0:0", "t:u:0", 1, "CASE-A1", null), // the answer: no next state, p = none
      await step("t:u:0:1", "t:u:0", 0, "CASE-B0", "observation: 6"),
      await step("t:u:0:1", "t:u:0", 1, "CASE-B1", null),
    ];
    // the outcome of A arrives before its last step is closed (the proxy hands closed turns on a tick later)
    h.pipeline.onTurnClosed(turns[0]!);
    end(h, "t:u:0:0", "t:u:0", 1, 2);
    h.pipeline.onTurnClosed(turns[1]!);
    h.pipeline.onTurnClosed(turns[2]!);
    h.pipeline.onTurnClosed(turns[3]!);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.sink.samples).toHaveLength(0); // B has not ended: the group waits
    end(h, "t:u:0:1", "t:u:0", 0, 2);
    await until(() => h.sink.samples.length === 4);

    const byId = Object.fromEntries(h.sink.samples.map((sample) => [sample.id, sample]));
    const view = (id: string) => {
      const sample = byId[id]!;
      return [sample.episode!.stepIndex, sample.episode!.stepScore, sample.episode!.outcome, sample.reward, Number(sample.advantage!.toFixed(4)), sample.lossMask.every((bit) => bit === 1)];
    };
    // r = o + p: A0 = 1 + 1, A1 = 1 + 0, B0 = −1 + 0, B1 = −1 + 0; buckets (g, 0) = {2, −1}, (g, 1) = {1, −1}
    expect(view("t:u:0:0:0")).toEqual([0, 1, 1, 2, 1, true]);
    expect(view("t:u:0:0:1")).toEqual([1, null, 1, 1, 1, true]);
    expect(view("t:u:0:1:0")).toEqual([0, 0, -1, -1, -1, true]);
    expect(view("t:u:0:1:1")).toEqual([1, null, -1, -1, -1, true]);
    expect(byId["t:u:0:0:0"]!.episode).toEqual({ episodeId: "t:u:0:0", groupId: "t:u:0", stepIndex: 0, stepScore: 1, outcome: 1 });
    expect(byId["t:u:0:0:0"]!.why).toContain("episode step 0: outcome 1.000 + 1·step score 1.000 = 2.000");
    // token-exact as any sample: prompt + response ids, the engine's log-probs
    expect(byId["t:u:0:0:0"]!.tokens).toEqual([...turns[0]!.promptIds, ...turns[0]!.responseIds]);
    expect(byId["t:u:0:0:0"]!.rolloutLogProbs).toEqual(turns[0]!.responseLogProbs);

    const records = await h.records();
    const a0 = records.find((record) => record.sessionId === "t:u:0:0" && record.turn === 0)!;
    expect(a0.episode).toMatchObject({ id: "t:u:0:0", groupId: "t:u:0", stepIndex: 0, stepScore: 1, outcome: 1, reward: 2, trained: true });
    expect(a0.evaluation.votes).toHaveLength(2);
    expect(a0.sample).toMatchObject({ id: "t:u:0:0:0", reward: 2, masked: false });
    // no judge call for a step without a next state
    expect(h.judge.callsFor("CASE-A1")).toBe(0);
  });

  it("a failed episode makes no samples; a constant bucket is masked; a bucket of one keeps its raw reward", async () => {
    harness = await startHarness({ judge: { votes: 1 }, episodes: { samples_per_task: 3, prm_step_coef: 0.5 } });
    const h = harness;
    for (const marker of ["CASE-C0", "CASE-D0", "CASE-E0"]) h.judge.script(marker, "eval", ["\\boxed{1}"]);
    const turns = [
      await step("g:u:1:0", "g:u:1", 0, "CASE-C0", "obs"),
      await step("g:u:1:1", "g:u:1", 0, "CASE-D0", "obs"),
      await step("g:u:1:1", "g:u:1", 1, "CASE-D1", null),
      await step("g:u:1:2", "g:u:1", 0, "CASE-E0", "obs"),
    ];
    for (const turn of turns) h.pipeline.onTurnClosed(turn);
    end(h, "g:u:1:0", "g:u:1", 1, 1);
    end(h, "g:u:1:1", "g:u:1", 1, 2);
    end(h, "g:u:1:2", "g:u:1", null, 1, "the grader crashed");
    await until(() => h.sink.samples.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const byId = Object.fromEntries(h.sink.samples.map((sample) => [sample.id, sample]));
    // (g, 0): C and D both 1 + 0.5·1 = 1.5: constant, masked; (g, 1): D alone, raw 1 + 0 = 1
    expect(byId["g:u:1:0:0"]).toMatchObject({ reward: 1.5, advantage: 0 });
    expect(byId["g:u:1:0:0"]!.lossMask.every((bit) => bit === 0)).toBe(true);
    expect(byId["g:u:1:1:1"]).toMatchObject({ reward: 1, advantage: 1 });
    expect(byId["g:u:1:1:1"]!.lossMask.every((bit) => bit === 1)).toBe(true);
    expect(byId["g:u:1:2:0"]).toBeUndefined();
    const failed = (await h.records()).find((record) => record.sessionId === "g:u:1:2")!;
    expect(failed.sample).toBeNull();
    expect(failed.skipped).toBe("the episode failed: the grader crashed");
    expect(failed.episode).toMatchObject({ trained: false, reward: null });
  });

  it("the sample gate applies to steps: a step cut at the token limit is not trained, the episode's other steps are", async () => {
    harness = await startHarness({ judge: { votes: 1 }, episodes: { samples_per_task: 1 } });
    const h = harness;
    h.judge.script("CASE-T0", "eval", ["\\boxed{1}"]);
    const cut = { ...(await step("t:u:3:0", "t:u:3", 0, "CASE-T0", "obs")), finishReason: "length" as const };
    h.pipeline.onTurnClosed(cut);
    h.pipeline.onTurnClosed(await step("t:u:3:0", "t:u:3", 1, "CASE-T1", null));
    end(h, "t:u:3:0", "t:u:3", 1, 2);
    await until(() => h.sink.samples.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.sink.samples.map((sample) => sample.id)).toEqual(["t:u:3:0:1"]);
    expect(h.judge.callsFor("CASE-T0")).toBe(0); // (refused before any judge call)
    const record = (await h.records()).find((entry) => entry.sessionId === "t:u:3:0" && entry.turn === 0)!;
    expect(record).toMatchObject({ gate: { category: "truncated" }, sample: null, skipped: expect.stringMatching(/^sample gate: /) });
  });

  it("at drain, a group short of samples_per_task is trained as it is and says why; an episode without an outcome is not", async () => {
    harness = await startHarness({ judge: { votes: 1 }, episodes: { samples_per_task: 8 } });
    const h = harness;
    h.judge.script("CASE-F0", "eval", ["\\boxed{-1}"]);
    h.judge.script("CASE-G0", "eval", ["\\boxed{1}"]);
    h.pipeline.onTurnClosed(await step("h:u:2:0", "h:u:2", 0, "CASE-F0", "obs"));
    h.pipeline.onTurnClosed(await step("h:u:2:1", "h:u:2", 0, "CASE-G0", "obs"));
    end(h, "h:u:2:0", "h:u:2", 0, 1);
    await until(() => h.judge.callsFor("CASE-G0") === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.sink.samples).toHaveLength(0);
    await h.pipeline.drain(3000);
    expect(h.sink.samples.map((sample) => [sample.id, sample.reward])).toEqual([["h:u:2:0:0", -2]]);
    const records = await h.records();
    expect(records.find((record) => record.sessionId === "h:u:2:0")!.episode.partialGroup).toBe("the run stopped before the group was complete");
    expect(records.find((record) => record.sessionId === "h:u:2:1")!.skipped).toBe("the episode never reported an outcome");
  });
});

describe("episode samples in the JSONL export", () => {
  it("carry the episode fields and the advantage, as the store's frames do", async () => {
    const { mkdtemp, readFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const path = await import("node:path");
    const { JsonlSink } = await import("../../orchestrator/sinks/jsonl-sink.ts");
    const { makeSample } = await import("../bridge/sample-factory.ts");
    const { encodeSample, decodeSample } = await import("../../orchestrator/store/sample-frame.ts");
    const file = path.join(await mkdtemp(path.join(tmpdir(), "episode-jsonl-")), "samples.jsonl");
    const sink = new JsonlSink(file);
    const sample = makeSample(3, { episode: true });
    await sink.put(sample);
    await sink.close();
    const line = JSON.parse((await readFile(file, "utf8")).trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ reward: 1.5, advantage: 1.5, episode: { episodeId: "task:3:0:3", groupId: "task:3:0", stepIndex: 0, stepScore: 0.5, outcome: 1 } });
    expect(decodeSample(encodeSample(sample, 7)).sample).toMatchObject({ advantage: 1.5, episode: sample.episode });
  });
});
