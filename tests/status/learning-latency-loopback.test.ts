// How soon it learns, through the real parts over loopback: turns closed by the session tracker, samples built and
// stored, a trainer fetching and acknowledging batches over the bridge, the engines' new version seen by the weight
// watcher; status then says each stage's wait, ordered, non-negative and within the test's own wall time.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../contracts/chat.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { buildSample } from "../../orchestrator/samples/sample-builder.ts";
import { SessionTracker } from "../../orchestrator/sessions/session-tracker.ts";
import { announceSamples } from "../../orchestrator/sinks/announcing-sink.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";
import { WeightUpdateWatcher } from "../../orchestrator/weights/weight-update-watcher.ts";
import { TestBridgeClient } from "../bridge/fixture-process.ts";
import { openBridgeLoopback, type BridgeLoopback } from "./bridge-loopback.ts";

const BATCH = 2;
const recipe = recipeSchema.parse({ name: "t", method: "binary", engine: { kind: "rehearsal" }, training: { batch_size: BATCH, max_staleness: 50 } });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let loopback: BridgeLoopback;
beforeEach(async () => void (loopback = await openBridgeLoopback("openclaw-latency-")));
afterEach(() => loopback.close());

describe("learning latency over loopback", () => {
  it("every stage of two batches is ordered, non-negative and within the wall time", async () => {
    const { store, endpoint, bus, versions } = loopback;
    const began = Date.now();
    const status = new StatusTracker(bus, recipe);
    const engineVersion = { value: "1" };
    const watcher = new WeightUpdateWatcher({ bus, tracker: versions, readVersion: async () => engineVersion.value, intervalMs: 20 });
    watcher.start();
    const sink = announceSamples(store, bus, BATCH, () => store.counts().ready);
    const closed: ClosedTurn[] = [];
    const sessions = new SessionTracker({ maxSessions: 10, idleTimeoutMs: 60_000, onTurnClosed: (turn) => closed.push(turn) });
    const moments: number[][] = []; // each sample's answer, close, judging and hand-out, as the bus said them
    bus.subscribe((event) => void (event.type === "batch-delivered" && moments.push(...(event.stages ?? []).map((stages) => [stages.answeredAt, stages.closedAt, stages.judgedAt, event.at]))));
    const trainer = new TestBridgeClient(endpoint.url, endpoint.token);
    await trainer.hello();
    try {
      for (let rollout = 0; rollout < 2; rollout++) {
        for (let index = 0; index < BATCH; index++) {
          // a user's turn answered, then (a little later) their next message closes it, and judging keeps it
          const session = `s${rollout}-${index}`;
          const history: ChatMessage[] = [{ role: "user", content: "hello" }];
          sessions.begin(session, "main", history);
          sessions.complete(capturedTurn(session, Date.now()), history);
          await pause(15);
          sessions.begin(session, "main", [...history, { role: "assistant", content: "hi" }, { role: "user", content: "thanks" }]);
          await pause(10);
          const built = buildSample({ turn: closed.at(-1)!, decision: { make: true, kind: "rl", reward: 1, teacher: "none", masked: false, promoted: false, why: "test" }, teacher: null, evalScore: null, now: Date.now() });
          if (!built.ok) throw new Error(built.reason);
          await sink.put(built.sample);
        }
        await pause(10);
        const batch = (await trainer.batch(rollout, BATCH))!;
        expect(batch.samples.every((sample) => sample.answeredAt !== undefined && sample.closedAt !== undefined)).toBe(true);
        await pause(20); // training
        expect(await trainer.ack(rollout, batch.batchId)).toBe(200);
        engineVersion.value = String(rollout + 2); // the engines serve the weights that include it
        for (let waited = 0; status.snapshot().learning_latency.samples < (rollout + 1) * BATCH && waited < 10_000; waited += 20) await pause(20);
      }
    } finally {
      watcher.stop();
    }
    const elapsed = Date.now() - began;
    expect(moments).toHaveLength(2 * BATCH);
    for (const sample of moments) expect([...sample].sort((left, right) => left - right)).toEqual(sample);
    const latency = status.snapshot().learning_latency;
    expect(latency.samples).toBe(2 * BATCH);
    expect(latency.awaiting_serve).toBe(0);
    expect(latency.last_served_update_at).toBeGreaterThanOrEqual(began);
    for (const [stage, value] of Object.entries(latency.stages)) {
      expect(value, stage).not.toBeNull();
      expect(value!.median, stage).toBeGreaterThanOrEqual(0);
      expect(value!.p90, stage).toBeGreaterThanOrEqual(value!.median);
      expect(value!.p90, stage).toBeLessThanOrEqual(elapsed);
    }
    const { closed: close, judged, handed, trained, served, total } = latency.stages;
    expect(close!.median).toBeGreaterThanOrEqual(10); // the next message came ≥ 15 ms after the answer
    expect(trained!.median).toBeGreaterThanOrEqual(15); // training took ≥ 20 ms
    // the stages add up to the whole: each sample's total is the sum of its waits
    expect(total!.p90).toBeLessThanOrEqual(close!.p90 + judged!.p90 + handed!.p90 + trained!.p90 + served!.p90);
    expect(total!.median).toBeGreaterThanOrEqual(close!.median + trained!.median);
  });
});

function capturedTurn(sessionId: string, endedAt: number) {
  return {
    version: 1 as const,
    sessionId,
    turn: 0,
    decidedBy: { session: "header:x-session-id" as const, turnType: "agent-conversation" as const, reason: "test" },
    messages: [],
    tools: null,
    promptIds: Int32Array.of(1, 2, 3),
    responseIds: [4, 5],
    responseLogProbs: [-0.1, -0.2],
    response: { role: "assistant" as const, content: "hi" },
    finishReason: "stop" as const,
    weightVersions: [{ version: "1", start: 0, end: 2 }],
    approximate: false,
    startedAt: endedAt - 5,
    firstTokenAt: endedAt - 4,
    endedAt,
  };
}
