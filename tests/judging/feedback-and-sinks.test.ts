// POST /v1/feedback (held before the turn closes, 400/404/409, re-judging a turn that made no sample), the JSONL
// sink and judgement records (0600, durable lines), and drain at shutdown.
import { readFile, stat } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import { JsonlSink } from "../../orchestrator/sinks/jsonl-sink.ts";
import { HANG, makeTurn, MemorySink, startHarness, type Harness } from "./judge-harness.ts";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function turnEnd(target: Harness, sessionId: string, turn: number) {
  target.bus.emit({ type: "turn-end", sessionId, turn, turnType: "main", finishReason: "stop", promptTokens: 10, responseTokens: 5, ttftMs: 1, totalMs: 2, weightVersions: ["7"], continuedAfterAbort: 0 });
}

describe("POST /v1/feedback", () => {
  it("feedback for the latest turn before it closes is held and scores it without the judge", async () => {
    harness = await startHarness({ method: "binary" });
    const turn = await makeTurn({ marker: "CASE-fb", sessionId: "s-fb", turn: 0 });
    turnEnd(harness, "s-fb", 0);
    const reply = await harness.pipeline.handleFeedback({ session_id: "s-fb", score: -1 }, {});
    expect(reply).toEqual({ status: 202, body: expect.objectContaining({ session_id: "s-fb", turn: 0, state: "held" }) });
    await harness.judgeTurn(turn);
    expect(harness.judge.calls).toHaveLength(0);
    expect(harness.sink.byId("s-fb:0")).toMatchObject({ reward: -1, why: "binary: explicit feedback -1" });
    const [record] = await harness.records();
    expect(record).toMatchObject({ explicit: { score: -1, hint: null, source: "endpoint" }, evaluation: null, sample: { reward: -1 } });
    // the turn has a sample now: feedback can no longer change it
    expect(await harness.pipeline.handleFeedback({ session_id: "s-fb", turn: 0, score: 1 }, {})).toMatchObject({ status: 409, body: { error: { field: "turn" } } });
  });

  it("feedback for an aborted turn (which never closes) answers 409 naming the latest complete turn, instead of being held for ever", async () => {
    harness = await startHarness({ method: "binary" });
    turnEnd(harness, "s-stop", 0);
    harness.bus.emit({ type: "turn-end", sessionId: "s-stop", turn: 1, turnType: "main", finishReason: "abort", promptTokens: 10, responseTokens: 2, ttftMs: 1, totalMs: 2, weightVersions: ["7"], continuedAfterAbort: 0 });
    const latest = await harness.pipeline.handleFeedback({ session_id: "s-stop", score: -1 }, {});
    expect(latest).toMatchObject({ status: 409, body: { error: { field: "turn", message: expect.stringMatching(/turn 1 .* was aborted .* never trained; the latest complete turn before it is 0 \(send "turn": 0\)/) } } });
    // the complete turn still takes it
    expect(await harness.pipeline.handleFeedback({ session_id: "s-stop", turn: 0, score: -1 }, {})).toMatchObject({ status: 202, body: { turn: 0, state: "held" } });
  });

  it("a sample the sink fails to store does not use up the session's at-least-one guarantee", async () => {
    let failOnce = true;
    const sink = new MemorySink();
    const flaky = {
      put: async (sample: Parameters<MemorySink["put"]>[0]) => {
        if (failOnce) {
          failOnce = false;
          throw new Error("disk full");
        }
        return sink.put(sample);
      },
      close: async () => {},
    };
    harness = await startHarness({ method: "binary", judge: { votes: 1, retries: 0 } }, { sink: flaky });
    harness.judge.script("CASE-eff0", "eval", ["\\boxed{1}"]);
    harness.judge.script("CASE-eff1", "eval", ["\\boxed{0}"]);
    expect(await harness.judgeTurn(await makeTurn({ marker: "CASE-eff0", sessionId: "s-eff", turn: 0 }))).toMatchObject({ sample: null, skipped: expect.stringMatching(/disk full/) });
    // the first judged turn's sample was lost: the next one (score 0) is kept by the guarantee, not masked
    expect(await harness.judgeTurn(await makeTurn({ marker: "CASE-eff1", sessionId: "s-eff", turn: 1 }))).toMatchObject({ sample: { reward: 0 } });
    expect(sink.byId("s-eff:1")).toMatchObject({ lossMask: expect.not.arrayContaining([0]), why: expect.stringContaining("at-least-one guarantee") });
  });

  it("answers 400 naming the field, 404 for unknown sessions and turns, without changing state", async () => {
    harness = await startHarness({ method: "binary" });
    turnEnd(harness, "s-known", 3);
    expect(await harness.pipeline.handleFeedback({ session_id: "s-known", score: 5 }, {})).toMatchObject({ status: 400, body: { error: { field: "score" } } });
    expect(await harness.pipeline.handleFeedback({ score: 1 }, {})).toMatchObject({ status: 400, body: { error: { field: "session_id" } } });
    expect(await harness.pipeline.handleFeedback("nope", {})).toMatchObject({ status: 400 });
    expect(await harness.pipeline.handleFeedback({ session_id: "s-known", hint: "use metric units" }, {})).toMatchObject({ status: 400, body: { error: { field: "hint" } } });
    expect(await harness.pipeline.handleFeedback({ session_id: "s-unknown", score: 1 }, {})).toMatchObject({ status: 404, body: { error: { field: "session_id" } } });
    expect(await harness.pipeline.handleFeedback({ session_id: "s-known", turn: 9, score: 1 }, {})).toMatchObject({ status: 404, body: { error: { field: "turn" } } });
    // the 400s held nothing: the turn is judged by the judge
    harness.judge.script("CASE-known", "eval", ["\\boxed{1}"]);
    await harness.judgeTurn(await makeTurn({ marker: "CASE-known", sessionId: "s-known", turn: 3 }));
    expect(harness.judge.callsFor("CASE-known")).toBe(3);
  });

  it("opd: a judged turn without a sample is judged again with an explicit hint", async () => {
    harness = await startHarness({ method: "opd", judge: { votes: 1 } });
    harness.judge.script("CASE-rejudge", "hint", ["\\boxed{-1}"]);
    const turn = await makeTurn({ marker: "CASE-rejudge", sessionId: "s-re", turn: 0 });
    expect(await harness.judgeTurn(turn)).toMatchObject({ sample: null });
    const again = harness.nextJudged("s-re", 0);
    const reply = await harness.pipeline.handleFeedback({ session_id: "s-re", hint: "Answer in kilometres, not miles." }, {});
    expect(reply).toMatchObject({ status: 202, body: { state: "rejudging", turn: 0 } });
    expect(await again).toMatchObject({ hintAccepted: true, sample: { kind: "opd", why: "opd: explicit hint" } });
    expect(harness.judge.callsFor("CASE-rejudge", "hint")).toBe(1); // the explicit hint replaced the hint votes
    expect(harness.judge.scored.at(-1)!.promptText).toContain("[user's hint / instruction]\nAnswer in kilometres, not miles.");
    const records = await harness.records();
    expect(records).toHaveLength(2);
    expect(records[1]).toMatchObject({ explicit: { hint: "Answer in kilometres, not miles.", source: "endpoint" }, hint: null, sample: { id: "s-re:0" } });
  });

  it("combine: an explicit score replaces the evaluation votes; hint votes still run", async () => {
    harness = await startHarness({ method: "combine", judge: { votes: 1 } });
    harness.judge.script("CASE-cfb", "hint", ["\\boxed{-1}"]);
    const turn = await makeTurn({ marker: "CASE-cfb", sessionId: "s-cfb", turn: 0, next: "👎" });
    await harness.judgeTurn(turn);
    expect(harness.judge.callsFor("CASE-cfb", "eval")).toBe(0);
    expect(harness.judge.callsFor("CASE-cfb", "hint")).toBe(1);
    const sample = harness.sink.byId("s-cfb:0")!;
    expect(sample).toMatchObject({ kind: "combined", reward: -1, why: expect.stringContaining("explicit feedback -1") });
    expect(sample.teacherLogProbs).toEqual(sample.rolloutLogProbs);
  });
});

describe("sinks, records and drain", () => {
  it("the JSONL sink appends one fsync'd line per sample, mode 0600", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "jsonl-sink-"));
    const sink = new JsonlSink(path.join(dir, "nested", "samples.jsonl"));
    harness = await startHarness({ method: "binary" }, { sink });
    const turns = await Promise.all(["👍", "👎", "+1"].map((next, index) => makeTurn({ marker: `CASE-sink${index}`, next })));
    await Promise.all(turns.map((turn) => harness!.judgeTurn(turn)));
    await sink.close();
    const lines = (await readFile(sink.path, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.map((line) => line.reward).sort()).toEqual([-1, 1, 1]);
    expect(lines[0]).toMatchObject({ version: 1, kind: "rl", tokens: expect.any(Array), lossMask: expect.any(Array) });
    expect((await stat(sink.path)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(harness.recordsDir, "judgements.jsonl"))).mode & 0o777).toBe(0o600);
    await expect(sink.put(lines[0])).rejects.toThrow(/closed/);
  });

  it("a relative sink.path lives inside records.dir", () => {
    const recipe = recipeSchema.parse({ engine: { kind: "rehearsal" }, sink: { kind: "jsonl", path: "samples.jsonl" }, records: { dir: "/tmp/run-x" } });
    expect(JsonlSink.fromRecipe(recipe).path).toBe("/tmp/run-x/samples.jsonl");
    expect(JsonlSink.fromRecipe({ ...recipe, sink: { kind: "jsonl", path: "/data/s.jsonl" } }).path).toBe("/data/s.jsonl");
  });

  it("drain waits for in-flight judgements, then gives up on hung ones after its timeout", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 1, timeout_s: 30, retries: 0 } }, { turnRetries: 0 });
    harness.judge.script("CASE-hung", "eval", [HANG]);
    harness.pipeline.onTurnClosed(await makeTurn({ marker: "CASE-hung" }));
    expect((await harness.stats()).pending).toBe(1);
    const started = Date.now();
    await harness.pipeline.drain(200);
    expect(Date.now() - started).toBeLessThan(15_000); // the hung judgement's own timeout is 30 s
    expect((await harness.stats()).pending).toBe(0);
    expect(harness.sink.samples).toHaveLength(0);
    expect(await harness.records()).toEqual([expect.objectContaining({ sample: null, skipped: expect.stringContaining("shutdown before the judge answered") })]);
  });
});
