// Judging on its own thread (JudgeThread + judge-worker.ts) against the SGLang stand-in: the same samples as the
// pipeline in-process (packing across the thread boundary loses nothing), events on the proxy's bus, feedback held
// for an open turn (its turn-end handed on with the feedback), the run's weight version read from its tracker (stale turns skipped), sink failures reported back, the
// judge re-pointed, a crashed worker replaced, a start that cannot load the tokenizer failing with the file named,
// and drain.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../contracts/events.ts";
import { recipeSchema, type RecipeInput } from "../../contracts/recipe.ts";
import type { Sample } from "../../contracts/sample.ts";
import type { SampleSink } from "../../contracts/sample-sink.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { packSample, unpackSample } from "../../orchestrator/judging/judge-thread-protocol.ts";
import { JudgeThread } from "../../orchestrator/judging/judge-thread.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { HANG, makeTurn, MemorySink, startHarness, type Harness } from "./judge-harness.ts";

let harness: Harness | null = null;
let thread: JudgeThread | null = null;
afterEach(async () => {
  await thread?.drain(2000);
  thread = null;
  await harness?.close();
  harness = null;
});

async function startThread(recipe: RecipeInput, judgeUrl: string | null, sink: SampleSink = new MemorySink(), versions = new WeightVersionTracker()) {
  const bus = new EventBus();
  const recordsDir = await mkdtemp(path.join(tmpdir(), "judge-thread-"));
  thread = await JudgeThread.start({
    data: { recipe: recipeSchema.parse({ engine: { kind: "rehearsal" }, ...recipe }), recordsDir, policySource: "builtin:qwen3", judgeSource: "builtin:qwen3", judgeUrl, retryBackoffMs: 5, turnRetryDelayMs: 10 },
    bus,
    sink,
    versions,
  });
  const judged = (sessionId: string, turn = 0) =>
    new Promise<Extract<RunEvent, { type: "turn-judged" }>>((resolve) => {
      const stop = bus.subscribe((event) => {
        if (event.type === "turn-judged" && event.sessionId === sessionId && event.turn === turn) {
          stop();
          resolve(event);
        }
      });
    });
  return { thread, bus, sink, versions, recordsDir, judged };
}

const withoutTime = (sample: Sample | undefined) => ({ ...sample, createdAt: 0 });

describe("judging on its own thread", () => {
  it("makes the same opd sample with top-K rows as the pipeline in-process, and its events reach the proxy's bus", async () => {
    harness = await startHarness({ method: "opd", judge: { votes: 1 }, opd: { topk: 5 } });
    harness.judge.script("CASE-thread", "hint", ["\\boxed{1} [HINT_START]Use metric units![HINT_END]"]);
    const turn = await makeTurn({ marker: "CASE-thread" });
    await harness.judgeTurn(turn);
    const inProcess = harness.sink.byId(`${turn.sessionId}:0`);
    expect(inProcess?.teacherTopkLogProbs).toHaveLength(turn.responseIds.length);

    const sink = new MemorySink();
    const running = await startThread({ method: "opd", judge: { votes: 1 }, opd: { topk: 5 } }, harness.server.url, sink);
    const events: RunEvent["type"][] = [];
    running.bus.subscribe((event) => events.push(event.type));
    const judged = running.judged(turn.sessionId);
    running.thread.onTurnClosed(turn);
    expect(await judged).toMatchObject({ method: "opd", hintAccepted: true, sample: { kind: "opd", reward: 1 } });
    expect(withoutTime(sink.byId(`${turn.sessionId}:0`))).toEqual(withoutTime(inProcess));
    expect(events).toContain("judge-vote");
  });

  it("feedback goes to the thread's ledger: held for a turn the proxy's bus said is open, 400 naming the field", async () => {
    harness = await startHarness({ method: "binary" });
    const sink = new MemorySink();
    const running = await startThread({ method: "binary" }, harness.server.url, sink);
    running.bus.emit({ type: "turn-end", sessionId: "s-fb", turn: 0, turnType: "main", finishReason: "stop", promptTokens: 10, responseTokens: 5, ttftMs: 1, totalMs: 2, weightVersions: ["7"], continuedAfterAbort: 0 });
    expect(await running.thread.handleFeedback({ session_id: "s-fb", score: 7 }, {})).toMatchObject({ status: 400, body: { error: { field: "score" } } });
    expect(await running.thread.handleFeedback({ session_id: "s-fb", score: -1 }, { "x-anything": "1" })).toEqual({ status: 202, body: expect.objectContaining({ session_id: "s-fb", turn: 0, state: "held" }) });
    const judged = running.judged("s-fb");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-fb", sessionId: "s-fb", turn: 0 }));
    expect(await judged).toMatchObject({ sample: { reward: -1, why: "binary: explicit feedback -1" } });
    expect(harness.judge.calls).toHaveLength(0);
    expect(sink.byId("s-fb:0")).toMatchObject({ reward: -1 });
  });

  it("an open turn's end crosses only with feedback: a closed turn speaks for itself, an aborted one is still refused (409)", async () => {
    harness = await startHarness({ method: "binary" });
    harness.judge.script("CASE-ab", "eval", ["\\boxed{1}"]);
    const running = await startThread({ method: "binary" }, harness.server.url);
    const turnEnd = (turn: number, finishReason: "stop" | "abort") =>
      running.bus.emit({ type: "turn-end", sessionId: "s-ab", turn, turnType: "main", finishReason, promptTokens: 10, responseTokens: 5, ttftMs: 1, totalMs: 2, weightVersions: ["7"], continuedAfterAbort: 0 });
    turnEnd(0, "stop");
    const judged = running.judged("s-ab");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-ab", sessionId: "s-ab", turn: 0 }));
    expect(await judged).toMatchObject({ sample: { reward: 1 } });
    turnEnd(1, "abort");
    expect(await running.thread.handleFeedback({ session_id: "s-ab", score: -1 }, {})).toMatchObject({
      status: 409,
      body: { error: { field: "turn", message: expect.stringMatching(/turn 1 .* was aborted .*; the latest complete turn before it is 0/) } },
    });
    expect(await running.thread.handleFeedback({ session_id: "s-ab", turn: 0, score: -1 }, {})).toMatchObject({ status: 409, body: { error: { message: expect.stringContaining("already made sample s-ab:0") } } });
  });

  it("a sample the proxy's sink refuses is reported back as not stored", async () => {
    harness = await startHarness({ method: "binary" });
    harness.judge.script("CASE-sink", "eval", ["\\boxed{1}"]);
    const running = await startThread({ method: "binary" }, harness.server.url, {
      put: async () => {
        throw new Error("disk full");
      },
      close: async () => undefined,
    });
    const judged = running.judged("session-CASE-sink");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-sink" }));
    expect(await judged).toMatchObject({ sample: null, skipped: "the sink did not store the sample: disk full" });
  });

  it("reads the run's weight version as it moves: a turn already stale is skipped without a judge call", async () => {
    harness = await startHarness({ method: "binary" });
    const running = await startThread({ method: "binary", training: { max_staleness: 2 } }, harness.server.url);
    running.versions.observe("10");
    const judged = running.judged("session-CASE-old");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-old" })); // tokens from versions 7 and 8
    expect(await judged).toMatchObject({ sample: null, skipped: expect.stringContaining("stale before judging: oldest token from weight version 7, current 10") });
    expect(harness.judge.calls).toHaveLength(0);
  });

  it("reads the run's weight version from before it started, and so does a worker started again after a crash", async () => {
    harness = await startHarness({ method: "binary" });
    const versions = new WeightVersionTracker();
    versions.observe("10"); // (seen before judging started)
    const running = await startThread({ method: "binary", training: { max_staleness: 2 } }, harness.server.url, new MemorySink(), versions);
    const first = running.judged("s-seeded");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-seeded", sessionId: "s-seeded" })); // tokens from versions 7 and 8
    expect(await first).toMatchObject({ sample: null, skipped: expect.stringContaining("stale before judging: oldest token from weight version 7, current 10") });

    versions.observe("12");
    const errors: string[] = [];
    running.bus.subscribe((event) => event.type === "error" && errors.push(event.message));
    await (running.thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect.poll(() => errors.join("\n"), { timeout: 5000 }).toContain("starting it again");
    const again = running.judged("s-restarted");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-seeded", sessionId: "s-restarted" }));
    expect(await again).toMatchObject({ sample: null, skipped: expect.stringContaining("oldest token from weight version 7, current 12") });
    expect(harness.judge.calls).toHaveLength(0);
  });

  it("follows a reset of the run's weight version (slime restarted): the turn is judged, not skipped", async () => {
    harness = await startHarness({ method: "binary" });
    harness.judge.script("CASE-reset", "eval", ["\\boxed{1}"]);
    const running = await startThread({ method: "binary", judge: { votes: 1 }, training: { max_staleness: 2 } }, harness.server.url);
    running.versions.observe("40");
    running.versions.reset();
    const judged = running.judged("session-CASE-reset");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-reset" })); // tokens from versions 7 and 8
    expect(await judged).toMatchObject({ skipped: null, sample: { reward: 1 } });
  });

  it("judges once pointed at the judge router (before that the calls fail and say so)", async () => {
    harness = await startHarness({ method: "binary" });
    harness.judge.script("CASE-point", "eval", ["\\boxed{-1}"]);
    const running = await startThread({ method: "binary", judge: { votes: 1, retries: 0 } }, null);
    const errors: string[] = [];
    running.bus.subscribe((event) => event.type === "error" && errors.push(event.message));
    const first = running.judged("s-before");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-point", sessionId: "s-before" }));
    expect(await first).toMatchObject({ sample: null, skipped: "judge failed: every evaluation vote failed" });
    expect(errors).toContain("s-before:0: judge failed: every evaluation vote failed after 2 attempt(s); no sample (never trained as neutral)");
    running.thread.pointJudge(harness.server.url);
    const second = running.judged("s-after");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-point", sessionId: "s-after" }));
    expect(await second).toMatchObject({ sample: { reward: -1 } });
  });

  it("a worker that dies is replaced, with the loss said on the bus; judging goes on", async () => {
    harness = await startHarness({ method: "binary" });
    harness.judge.script("CASE-again", "eval", ["\\boxed{1}"]);
    const running = await startThread({ method: "binary" }, harness.server.url);
    const errors: string[] = [];
    running.bus.subscribe((event) => event.type === "error" && errors.push(event.message));
    await (running.thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect.poll(() => errors.join("\n"), { timeout: 5000 }).toContain("the judging thread exited (code 1); turns it was judging are lost; starting it again (2 restart(s) left)");
    const judged = running.judged("session-CASE-again");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-again" }));
    expect(await judged).toMatchObject({ sample: { reward: 1 } });
  });

  it("a tokenizer that cannot be read fails the start with the file named", async () => {
    const recordsDir = await mkdtemp(path.join(tmpdir(), "judge-thread-"));
    const start = JudgeThread.start({
      data: { recipe: recipeSchema.parse({ engine: { kind: "rehearsal" }, method: "binary" }), recordsDir, policySource: "builtin:qwen3", judgeSource: "/nonexistent/judge-model", judgeUrl: null },
      bus: new EventBus(),
      sink: new MemorySink(),
      versions: new WeightVersionTracker(),
    });
    await expect(start).rejects.toMatchObject({ code: "TEMPLATE_ERROR", path: "/nonexistent/judge-model/tokenizer.json", message: expect.stringContaining("the judging thread did not start: cannot read tokenizer.json") });
  });

  it("drain waits for a judgement in flight, then turns and feedback are refused", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 1 } });
    harness.judge.script("CASE-slow", "eval", [HANG]);
    const sink = new MemorySink();
    const running = await startThread({ method: "binary", judge: { votes: 1 } }, harness.server.url, sink);
    const judged = running.judged("session-CASE-slow");
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-slow" }));
    await expect.poll(() => harness!.judge.calls.length).toBe(1);
    await running.thread.drain(10_000);
    expect(await judged).toMatchObject({ sample: { reward: 1 } }); // the hung answer came (after 3 s) before the deadline
    expect(sink.samples).toHaveLength(1);
    expect(await running.thread.handleFeedback({ session_id: "x", score: 1 }, {})).toMatchObject({ status: 503 });
    running.thread.onTurnClosed(await makeTurn({ marker: "CASE-late" })); // ignored, no throw
  });
});

describe("samples across the thread boundary", () => {
  it("unpack(pack(sample)) is the sample, and ragged top-K rows are refused naming the row", () => {
    const sample: Sample = {
      version: 1,
      id: "s:0",
      sessionId: "s",
      turn: 0,
      kind: "opd",
      tokens: [1, 2, 151645, 7],
      responseLength: 2,
      lossMask: [1, 0],
      rolloutLogProbs: [-0.25, -1e-9],
      reward: 1,
      teacherLogProbs: [-0.5, -3.0000000001],
      teacherTopkLogProbs: [[-0.1, -2], [-0.3, -4]],
      teacherTopkIndices: [[7, 9], [151645, 3]],
      weightVersions: ["3", "4"],
      status: "completed",
      why: "opd: hint",
      approximate: false,
      createdAt: 5,
      evalScore: null,
    };
    expect(unpackSample(packSample(sample).sample)).toEqual(sample);
    const { teacherLogProbs: _t, teacherTopkLogProbs: _l, teacherTopkIndices: _i, ...plain } = sample;
    expect(unpackSample(packSample(plain).sample)).toEqual(plain);
    expect(() => packSample({ ...sample, teacherTopkIndices: [[7, 9], [3]] })).toThrow("sample s:0: teacherTopkIndices[1] has 1 entries, expected 2");
  });

  it("a hybrid sample's candidates (of different lengths) cross as one transferred block and come back as they were", () => {
    const hybrid: Sample = { ...plainSample(), kind: "hybrid", why: "hybrid: 2 hints of 3 votes + evaluation +1", hintCandidates: [[5, 6, 7, 151645, 7], [5, 151645, 7], [1, 2, 151645, 7]] };
    const { sample: packed, transfer } = packSample(hybrid);
    expect(packed.hintCandidates?.lengths).toEqual([5, 3, 4]);
    expect(transfer).toContain(packed.hintCandidates!.ids.buffer);
    expect(unpackSample(packed)).toEqual(hybrid);
  });
});

function plainSample(): Sample {
  return { version: 1, id: "h:0", sessionId: "h", turn: 0, kind: "rl", tokens: [1, 2, 151645, 7], responseLength: 2, lossMask: [1, 1], rolloutLogProbs: [-0.25, -0.5], reward: 1, weightVersions: ["1", "1"], status: "completed", why: "", approximate: false, createdAt: 5, evalScore: 1 };
}
