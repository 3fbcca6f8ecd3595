// The admin server on loopback: token auth, GET /status folded from real events, the ws stream (replay
// then live), mounted handlers, the 0600 token file, and weight-update events from version changes.
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { recipeSchema } from "../../contracts/recipe.ts";
import type { RunEvent } from "../../contracts/events.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { AdminServer } from "../../orchestrator/status/admin-server.ts";
import { createAdminToken, readAdminToken } from "../../orchestrator/status/admin-token.ts";
import { statusSnapshotSchema } from "../../contracts/status.ts";
import { formatStatus } from "../../cli/commands/status-format.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";
import { WeightUpdateWatcher } from "../../orchestrator/weights/weight-update-watcher.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";

describe("admin server", () => {
  const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-status-"));
  const bus = new EventBus();
  const recipe = recipeSchema.parse({ name: "t", method: "combine", engine: { kind: "rehearsal" }, training: { batch_size: 4 } });
  let token: string;
  let server: AdminServer;
  let url: string;
  let tracker: StatusTracker;

  beforeAll(async () => {
    token = createAdminToken(runDir);
    bus.emit({ type: "engine-state", name: "rehearsal-policy", state: "ready", detail: "GET /health → 200" });
    bus.emit({ type: "turn-start", sessionId: "s1", turn: 0, turnType: "main", decidedBy: "header" });
    bus.emit({ type: "turn-start", sessionId: "s1", turn: 1, turnType: "side", decidedBy: "utility model" });
    bus.emit({ type: "sample-ready", sampleId: "s1:0", sessionId: "s1", turn: 0, kind: "combined", reward: 1, ready: 1, batchSize: 4 });
    bus.emit({ type: "sample-ready", sampleId: "s1:2", sessionId: "s1", turn: 2, kind: "combined", reward: -1, ready: 2, batchSize: 4 });
    tracker = new StatusTracker(bus, recipe, { readiness: () => ({ ready: true, reason: "all engines ready" }) });
    server = new AdminServer({ bus, token, snapshot: () => tracker.snapshot() });
    server.mount((request, response) => {
      if (request.url !== "/dashboard") return false;
      response.end("mounted");
      return true;
    });
    url = (await server.listen(0)).url;
  });

  afterAll(async () => {
    await server.close();
    tracker.close();
  });

  it("stores the token 0600 and refuses requests without it", async () => {
    expect(statSync(path.join(runDir, "admin-token")).mode & 0o777).toBe(0o600);
    expect(readAdminToken(runDir)).toBe(token);
    expect((await fetch(`${url}/status`)).status).toBe(401);
    expect((await fetch(`${url}/status`, { headers: { authorization: "Bearer wrong-token-value" } })).status).toBe(401);
    expect(await (await fetch(`${url}/dashboard`)).text()).toBe("mounted");
  });

  it("serves the folded status as versioned JSON", async () => {
    bus.emit({ type: "sample-ready", sampleId: "s1:3", sessionId: "s1", turn: 3, kind: "combined", reward: 1, ready: 3, batchSize: 4 }); // (with the two of beforeAll)
    bus.emit({ type: "batch-delivered", rolloutId: 0, batchId: "b0", size: 2, meanReward: 0, evalScore: null, counts: { positive: 1, zero: 0, negative: 1 } });
    bus.emit({ type: "sample-dropped", sampleId: "x", reason: "stale", detail: "3 versions behind" });
    bus.emit({ type: "error", source: "judge", code: "JUDGE_FAILED", message: "vote 2 timed out" });
    for (const turn of [0, 1, 2]) bus.emit({ type: "turn-closed", sessionId: "s1", turn, closedBy: "next-request", nextStateRole: "user" });
    bus.emit({ type: "turn-judged", sessionId: "s1", turn: 0, method: "combine", score: 1, hintAccepted: true, sample: { kind: "combined", reward: 1, why: "combine" }, skipped: null });
    bus.emit({ type: "turn-judged", sessionId: "s1", turn: 2, method: "combine", score: null, hintAccepted: null, sample: null, skipped: "stale before judging: …", skipCategory: "stale" });
    const response = await fetch(`${url}/status`, { headers: { authorization: `Bearer ${token}` } });
    const status = statusSnapshotSchema.parse(await response.json());
    expect(status).toMatchObject({
      ready: true,
      method: "combine",
      stand_in: true,
      sessions: 1,
      turns: { main: 1, side: 1 },
      samples: { made: 3, from_earlier_runs: 0, ready: 0, batch_size: 4, in_training: 2, trained: 0, dropped: { stale: 1, invalid: 0 }, delivered: 2 },
      batches: 0,
      batches_delivered: 1,
      rewards: { count: 3, positive: 2, negative: 1 },
      judging: { judged: 4, without_sample: 1, skipped: { stale: 1 }, waiting: 1 },
      engines: [{ name: "rehearsal-policy", state: "ready" }],
    });
    expect(formatStatus(status)).toContain("judging     4 judged = 3 made a sample + 1 without a sample (stale 1) · 1 waiting");
    expect(status.errors[0]).toMatchObject({ source: "judge", message: "vote 2 timed out" });
    bus.emit({ type: "batch-acknowledged", rolloutId: 0, batchId: "b0" });
    expect(tracker.snapshot()).toMatchObject({ samples: { in_training: 0, trained: 2, delivered: 2 }, batches: 1, batches_delivered: 1 });
  });

  it("streams events over ws: history first, then live; no token, no stream", async () => {
    const refused = new WebSocket(`${url.replace("http", "ws")}/events`);
    const refusal = await new Promise<string>((resolve) => {
      refused.on("unexpected-response", (_request, response) => resolve(String(response.statusCode)));
      refused.on("error", () => resolve("error"));
    });
    expect(refusal).toBe("401");

    const client = new WebSocket(`${url.replace("http", "ws")}/events`, { headers: { authorization: `Bearer ${token}` } });
    const received: Array<{ event?: RunEvent; replayed?: boolean; replay?: number }> = [];
    await new Promise<void>((resolve, reject) => {
      client.on("message", (data) => {
        received.push(JSON.parse(String(data)));
        if (received.some((message) => message.event?.type === "weights-update-end" && !message.replayed)) resolve();
      });
      client.on("open", () => bus.emit({ type: "weights-update-end", toVersion: "1", durationMs: 5 }));
      client.on("error", reject);
    });
    client.close();
    expect(received[0]!.replay).toBeGreaterThanOrEqual(5);
    expect(received.slice(1, 3).map((message) => message.event?.type)).toEqual(["engine-state", "turn-start"]);
    expect(received.at(-1)!.event).toMatchObject({ type: "weights-update-end", toVersion: "1" });
  });

  it("emits weights-update-start/end when the engine's version moves", async () => {
    const versionTracker = new WeightVersionTracker(0);
    let engineVersion = "0";
    const watcher = new WeightUpdateWatcher({ bus, tracker: versionTracker, readVersion: async () => engineVersion });
    const seen: string[] = [];
    const unsubscribe = bus.subscribe((event) => event.type.startsWith("weights-update") && seen.push(`${event.type}`));
    await watcher.poll();
    engineVersion = "2";
    await watcher.poll();
    await watcher.poll();
    watcher.stop();
    unsubscribe();
    expect(seen).toEqual(["weights-update-start", "weights-update-end"]);
    expect(tracker.snapshot()).toMatchObject({ weight_version: "2", weights_updating: false });
  });
});
