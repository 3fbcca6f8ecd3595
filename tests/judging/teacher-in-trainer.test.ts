// opd.teacher trainer: the judge engine is asked for the hint (and votes) only, never for teacher values; the sample
// carries the hinted prompt's ids followed by the response for the trainer's teacher, and no teacher log-probs. The
// frame and the batch keep them apart from the rollout-teacher fill; the recipe refuses what no trainer can do.
import { describe, expect, it } from "vitest";
import { BATCH_FRAME_MAGIC, SAMPLE_FRAME_MAGIC, type BatchFrameHeader } from "../../contracts/bridge.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { customConfig } from "../../launchers/slime/train-args.ts";
import { SAMPLE_VERSION, type Sample } from "../../contracts/sample.ts";
import { assembleBatchFrame } from "../../orchestrator/bridge/batch-frame.ts";
import { hintedPromptIds } from "../../orchestrator/judging/hinted-prompt.ts";
import { packSample, unpackSample } from "../../orchestrator/judging/judge-thread-protocol.ts";
import { decodeSample, encodeSample, parseFrame } from "../../orchestrator/store/sample-frame.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { makeTurn, RecordingClient, startHarness, type Harness } from "./judge-harness.ts";

const HINT = "Keep answers in metric units";

describe("opd.teacher trainer: judging", () => {
  for (const [method, temperature] of [["opd", 0.6], ["combine", 1]] as const) {
    it(`${method} at teacher temperature ${temperature}: no teacher request; the sample carries hinted prompt + response ids`, async () => {
      let client: RecordingClient | null = null;
      const harness: Harness = await startHarness({ method, judge: { votes: 1 }, opd: { teacher: "trainer", teacher_temperature: temperature } }, {}, (url) => (client = new RecordingClient({ baseUrl: url })));
      harness.judge.script(`CASE-${method}`, "hint", [`\\boxed{1} [HINT_START]${HINT}[HINT_END]`]);
      harness.judge.script(`CASE-${method}`, "eval", ["\\boxed{1}"]);
      const turn = await makeTurn({ marker: `CASE-${method}` });
      await harness.judgeTurn(turn);
      expect(client!.requests.filter((request) => request.input_ids !== undefined)).toEqual([]); // votes go as text; no teacher scoring
      const promptIds = await hintedPromptIds(turn.messages, turn.tools, HINT, harness.template, harness.tokenizer);
      const sample = harness.sink.byId(`${turn.sessionId}:0`)!;
      expect(sample.teacherTokens).toEqual([...promptIds, ...turn.responseIds]);
      expect(sample.teacherLogProbs).toBeUndefined();
      const [record] = await harness.records();
      expect(record!.teacher).toEqual({ ok: true, reason: null, promptLength: promptIds.length, logprobStartLen: null, topk: 0, promptReproduced: true, temperature, scoring: "trainer", requests: 0 });
      await harness.close();
    });
  }

  it("opd with top-K on the fork's slime: no teacher request either; the trainer's forward gives the rows (nothing top-K in the sample)", async () => {
    let client: RecordingClient | null = null;
    const recipe = { method: "opd", engine: { kind: "slime", slime: { flavor: "fork" } }, judge: { votes: 1 }, opd: { teacher: "trainer", topk: 3 } } as const;
    const harness: Harness = await startHarness(recipe, {}, (url) => (client = new RecordingClient({ baseUrl: url })));
    harness.judge.script("CASE-topk", "hint", [`\\boxed{1} [HINT_START]${HINT}[HINT_END]`]);
    const turn = await makeTurn({ marker: "CASE-topk" });
    await harness.judgeTurn(turn);
    expect(client!.requests.filter((request) => request.input_ids !== undefined)).toEqual([]);
    const sample = harness.sink.byId(`${turn.sessionId}:0`)!;
    expect(sample.teacherTokens?.slice(-turn.responseIds.length)).toEqual(turn.responseIds);
    expect([sample.teacherLogProbs, sample.teacherTopkLogProbs, sample.teacherTopkIndices]).toEqual([undefined, undefined, undefined]);
    const [record] = await harness.records();
    expect(record!.teacher).toMatchObject({ ok: true, scoring: "trainer", requests: 0 });
    await harness.close();
  });
});

function sample(id: string, extra: Partial<Sample>): Sample {
  return {
    version: SAMPLE_VERSION,
    id,
    sessionId: id,
    turn: 0,
    kind: "combined",
    tokens: [1, 2, 3, 4, 5],
    responseLength: 2,
    lossMask: [1, 1],
    rolloutLogProbs: [-0.5, -0.25],
    reward: 1,
    weightVersions: ["0", "0"],
    status: "completed",
    why: "test",
    approximate: false,
    createdAt: 0,
    ...extra,
  };
}

describe("opd.teacher trainer: frames", () => {
  it("teacherTokens round-trips through the sample frame and is refused when it does not end with the response or comes with teacherLogProbs", () => {
    const withTokens = sample("a", { teacherTokens: [1, 2, 9, 9, 3, 4, 5] });
    expect(decodeSample(encodeSample(withTokens, 1)).sample.teacherTokens).toEqual([1, 2, 9, 9, 3, 4, 5]);
    expect(() => encodeSample(sample("b", { teacherTokens: [1, 2, 9, 4, 6] }), 1)).toThrow(/teacherTokens must end with the response/);
    expect(() => encodeSample(sample("c", { teacherTokens: [4, 5] }), 1)).toThrow(/at least one hinted prompt token/);
    expect(() => encodeSample(sample("d", { teacherTokens: [9, 4, 5], teacherLogProbs: [-1, -1] }), 1)).toThrow(/exclude each other/);
  });

  it("teacherTokens crosses from the judging thread as a transferred Int32Array and comes back as the same ids", () => {
    const { sample: packed, transfer } = packSample(sample("t", { teacherTokens: [1, 2, 9, 4, 5] }));
    expect(packed.teacherTokens).toBeInstanceOf(Int32Array);
    expect(transfer).toContain(packed.teacherTokens!.buffer);
    expect(unpackSample(packed).teacherTokens).toEqual([1, 2, 9, 4, 5]);
  });

  it("a batch with teacher tokens fills only the samples with no teacher at all from their rollout log-probs", () => {
    const frames = [encodeSample(sample("hinted", { teacherTokens: [7, 8, 4, 5] }), 1), encodeSample(sample("unhinted", {}), 2)];
    const staleness = new StalenessPolicy({ current: () => 0 }, 100);
    const { frame, header } = assembleBatchFrame({ batchId: "b1", rolloutId: 0, seqs: [1, 2], frames }, staleness);
    expect(parseFrame<BatchFrameHeader>(frame, BATCH_FRAME_MAGIC).header.filled).toEqual({ teacherFromRollout: 1, topkOmitted: 0 });
    const [hinted, unhinted] = header.samples;
    expect(hinted!.blocks.teacherTokens).toBeDefined();
    expect(hinted!.blocks.teacherLogProbs).toBeUndefined();
    expect(unhinted!.blocks.teacherLogProbs).toEqual(unhinted!.blocks.rolloutLogProbs);
    expect(parseFrame(frames[0]!, SAMPLE_FRAME_MAGIC).header).toMatchObject({ blocks: { teacherTokens: { dtype: "int32", count: 4 } } });
  });
});

describe("opd.teacher: recipe", () => {
  const slime = (flavor: "fork" | "upstream", extra: Record<string, unknown> = {}): Record<string, unknown> => ({ method: "opd", engine: { kind: "slime", slime: { flavor } }, judge: { launch: "standalone" }, ...extra });

  it("unset, it is trainer wherever the trainer can run the teacher: both slime flavours (Megatron) and rehearsal", () => {
    for (const flavor of ["fork", "upstream"] as const) {
      const recipe = recipeSchema.parse(slime(flavor));
      expect(recipe.opd.teacher).toBeUndefined();
      expect(recipe.derived.trainerTeacherGap).toBeNull();
      expect(recipe.derived.teacher).toBe("trainer");
      expect(customConfig(recipe).openclaw_rl_teacher).toBe("trainer");
    }
    expect(recipeSchema.parse({ method: "combine", engine: { kind: "rehearsal" } }).derived.teacher).toBe("trainer");
    expect(recipeSchema.parse({ method: "binary" }).derived.teacher).toBe("engine"); // no teacher to run
    expect(recipeSchema.parse({ method: "opd", opd: { teacher: "engine" } }).derived.teacher).toBe("engine");
  });

  it("top-K rows come from the trainer's teacher on the fork; the rehearsal stand-in gives token-level values only", () => {
    const fork = recipeSchema.parse(slime("fork", { opd: { topk: 5 } }));
    expect([fork.derived.teacher, customConfig(fork).openclaw_rl_topk]).toEqual(["trainer", 5]);
    const rehearsal = { method: "opd", engine: { kind: "rehearsal" }, opd: { topk: 5 } };
    expect(recipeSchema.parse(rehearsal).derived.teacher).toBe("engine");
    const refused = recipeSchema.safeParse({ ...rehearsal, opd: { topk: 5, teacher: "trainer" } });
    expect(refused.error!.issues.find((issue) => issue.path.join(".") === "opd.teacher")?.message).toMatch(/rehearsal stand-in trainer gives token-level teacher log-probs only, no top-K rows/);
  });

  it("unset, it falls back to engine where the trainer cannot; set to trainer there, it is refused with the reason", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ cluster: { actor_cp: 2 } }, /cluster\.actor_cp is 2/],
      [{ judge: { launch: "standalone", path: "/models/bigger-judge" } }, /judge\.path \/models\/bigger-judge names another model/],
      [{ sampling: { temperature: 0.6 }, opd: { teacher_temperature: 1 } }, /--rollout-temperature \(sampling\.temperature 0\.6\), not opd\.teacher_temperature 1/],
      [{ sink: { kind: "jsonl", path: "/tmp/s.jsonl" } }, /sink\.kind jsonl/],
    ];
    for (const [extra, reason] of cases) {
      const base = slime("fork", extra);
      const unset = recipeSchema.safeParse(base);
      if (unset.success) expect(unset.data.derived.teacher).toBe("engine");
      const opd = { ...(base.opd as object | undefined), ...((extra.opd as object | undefined) ?? {}), teacher: "trainer" };
      const refused = recipeSchema.safeParse({ ...base, opd });
      expect(refused.success).toBe(false);
      expect(refused.error!.issues.find((issue) => issue.path.join(".") === "opd.teacher")?.message).toMatch(reason);
    }
  });
});
