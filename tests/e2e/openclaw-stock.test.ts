// Stock OpenClaw (openclaw@2026.9.6 from npm, Node 24) attached to `openclaw-rl start` on the rehearsal engine:
// three conversations of three user turns each, a tool call, explicit 👍 / 👎, OpenClaw's own activity-recap side
// requests, and the stand-in trainer's weight updates mid-conversation. Checks what was captured, judged, delivered.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openclawInstalled } from "./support/openclaw-client.ts";
import { startGateway, type Gateway } from "./support/openclaw-gateway.ts";
import { readJsonl } from "../support/jsonl.ts";
import { freePort, until } from "../support/loopback.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const API_KEY = "e2e-proxy-key";

// Each conversation: three user turns. The stand-in policy calls the `ls` tool when asked to list files.
const CONVERSATIONS: Record<string, string[]> = {
  "e2e-plain": ["Hello! What can you help me with today?", "Give me one tip for writing clear emails.", "👍"],
  "e2e-tool": ["List the files in the current folder.", "Thanks. Which of them looks like documentation?", "👎"],
  "e2e-style": ["Explain recursion in two sentences.", "That sounds like an AI, be natural please.", "thumbs up"],
};

describe("stock OpenClaw end to end (rehearsal engine)", () => {
  let folder = "";
  let runDir = "";
  let proxyPort = 0;
  let policyPort = 0;
  let start: ReturnType<typeof execa> | null = null;
  let gateway: Gateway | null = null;
  const replies: { session: string; message: string; status: number; text: string | null }[] = [];
  let statusDuring: Record<string, any> = {};
  let versionBefore = "";

  beforeAll(async () => {
    expect(openclawInstalled(), "stock OpenClaw is installed by tests/e2e/prepare.sh (npm run test:e2e)").toBe(true);
    folder = await mkdtemp(path.join(tmpdir(), "openclaw-e2e-"));
    runDir = path.join(folder, "run");
    [proxyPort, policyPort] = [await freePort(), await freePort()];
    const sets = {
      "records.dir": runDir,
      "proxy.port": proxyPort,
      "proxy.admin_port": await freePort(),
      "proxy.utility_models": "[qwen3-util]",
      "engine.rehearsal.policy_port": policyPort,
      "engine.rehearsal.judge_port": await freePort(),
      "engine.rehearsal.train_seconds": 0.2,
      // a batch per sample: slime's async order (train_async.py) trains rollout N and then waits for N+1's data before
      // it syncs weights, so the two samples the first two rounds make give a weight update before the third round
      "training.batch_size": 1,
      // weights change every 2 samples here, far faster than a real run: keep every sample deliverable
      "training.max_staleness": 50,
    };
    const argv = ["bin/openclaw-rl.mjs", "start", "--method", "combine", ...Object.entries(sets).flatMap(([key, value]) => ["--set", `${key}=${value}`])];
    start = execa(process.execPath, argv, { cwd: root, reject: false, all: true, env: { OPENCLAW_RL_API_KEY: API_KEY } });
    await until("the proxy to be ready", async () => ((await fetch(`http://127.0.0.1:${proxyPort}/readyz`)).ok ? true : null), 120_000);
    versionBefore = await until("the first weight sync", async () => {
      const body = (await (await fetch(`http://127.0.0.1:${policyPort}/get_weight_version`)).json()) as { weight_version: string };
      return body.weight_version !== "default" ? body.weight_version : null;
    }, 120_000);
    gateway = await startGateway({ proxyUrl: `http://127.0.0.1:${proxyPort}/v1`, apiKey: API_KEY, model: "qwen3-4b", utilityModel: "qwen3-util", port: await freePort(), token: "e2e-gateway-token" });

    for (let round = 0; round < 3; round++) {
      // the first round's turns, closed by the second round's messages, are judged and trained on: the last round is
      // served by newer weights however slow the machine (waited for, not raced)
      if (round === 2) {
        await until("a weight update after the first two rounds", async () => {
          const body = (await (await fetch(`http://127.0.0.1:${policyPort}/get_weight_version`)).json()) as { weight_version: string };
          return Number(body.weight_version) > Number(versionBefore) ? body.weight_version : null;
        }, 300_000);
      }
      for (const [session, messages] of Object.entries(CONVERSATIONS)) {
        const message = messages[round]!;
        const reply = await gateway.chat(session, message);
        replies.push({ session, message, status: reply.status, text: reply.text });
      }
    }
    // OpenClaw's recaps run after a turn: give them a moment, then read status while the run is still live.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const status = await execa(process.execPath, ["bin/openclaw-rl.mjs", "status", "--run", runDir, "--json"], { cwd: root, reject: false });
    statusDuring = JSON.parse(String(status.stdout)) as Record<string, any>;
    console.log(`status --json during the run:\n${String(status.stdout)}`);
  }, 600_000);

  afterAll(async () => {
    const gatewayLog = gateway ? await gateway.stop() : "";
    if (start) {
      start.kill("SIGINT");
      const result = await start;
      if (result.exitCode !== 0) console.log(`openclaw-rl start exited ${result.exitCode}:\n${String(result.all).slice(-4000)}\n${gatewayLog}`);
    }
  }, 120_000);

  it("OpenClaw saw an answer to every turn, with no error, across weight updates", () => {
    expect(replies).toHaveLength(9);
    for (const reply of replies) {
      expect(reply.status, `${reply.session}: "${reply.message}"`).toBe(200);
      expect(reply.text?.length ?? 0, `${reply.session}: "${reply.message}" got text`).toBeGreaterThan(0);
    }
    expect(Number(statusDuring.weight_version)).toBeGreaterThan(Number(versionBefore));
  });

  it("status: batches delivered, side requests counted, nothing stale", () => {
    expect(statusDuring.ready).toBe(true);
    expect(statusDuring.stand_in).toBe(true);
    expect(statusDuring.batches_delivered).toBeGreaterThanOrEqual(1);
    expect(statusDuring.turns.main).toBeGreaterThanOrEqual(9);
    expect(statusDuring.turns.side, "OpenClaw's activity recaps reach the proxy as side requests").toBeGreaterThan(0);
    expect(statusDuring.samples.dropped.stale).toBe(0);
  });

  it("every main turn was captured with the right session and next state; side requests were not", async () => {
    // Stopping closes each session's last turn, so read the records after the run has ended.
    if (start) {
      start.kill("SIGINT");
      await start;
      start = null;
    }
    const turns = await readJsonl(path.join(runDir, "turns.jsonl"));
    const sessions = new Map<string, Record<string, any>[]>();
    for (const turn of turns) sessions.set(turn.session_id, [...(sessions.get(turn.session_id) ?? []), turn]);
    expect(sessions.size, `captured sessions: ${[...sessions.keys()].join(", ")}`).toBe(3);
    for (const turn of turns) {
      const system = String(turn.messages?.[0]?.content ?? "");
      expect(system.startsWith("Write an Activity recap"), "a recap request was captured as a main turn").toBe(false);
      expect(turn.approximate).toBe(false);
      expect(turn.response_ids.length).toBe(turn.response_log_probs.length);
    }
    const userMessages = Object.values(CONVERSATIONS).flat();
    for (const [sessionId, sessionTurns] of sessions) {
      const ordered = [...sessionTurns].sort((a, b) => a.turn - b.turn);
      expect(ordered.map((turn) => turn.turn)).toEqual(ordered.map((_, index) => index));
      const userTexts = ordered.filter((turn) => turn.next_state?.role === "user").map((turn) => JSON.stringify(turn.next_state));
      // The second and third user messages of this conversation are next states of earlier turns.
      const conversation = Object.values(CONVERSATIONS).find((messages) => userTexts.some((text) => text.includes(JSON.stringify(messages[1]!).slice(1, -1))));
      expect(conversation, `session ${sessionId}: next states ${userTexts.join(" | ")}`).toBeDefined();
      for (const message of conversation!.slice(1)) expect(userTexts.some((text) => text.includes(JSON.stringify(message).slice(1, -1)))).toBe(true);
      for (const text of userTexts) expect(text.includes("BEGIN_OPENCLAW_INTERNAL_CONTEXT")).toBe(false);
      expect(ordered.at(-1)!.next_state).toBeNull();
      expect(userMessages.length).toBe(9);
    }
    const toolTurns = turns.filter((turn) => (turn.response?.tool_calls?.length ?? 0) > 0);
    expect(toolTurns.length, "the tool-call turn was captured").toBeGreaterThanOrEqual(1);
    for (const turn of toolTurns) {
      if (turn.next_state) expect(turn.next_state.role).toBe("tool");
    }
    const versions = new Set(turns.flatMap((turn) => turn.weight_versions.map((span: { version: string }) => span.version)));
    expect(versions.size, `weight versions seen by captured turns: ${[...versions].join(",")}`).toBeGreaterThanOrEqual(2);
    // main turns are drawn from the trainer's distribution whatever OpenClaw sent; status names its client (its SDK)
    const sampling = [...new Set(turns.map((turn) => JSON.stringify(turn.sampling)))];
    const clients = statusDuring.clients as Array<{ client: string; main_turns: number; asked_otherwise: number; off_policy: number; asked: Record<string, number> }>;
    console.log(`OpenClaw's main turns drawn with ${sampling.join(" ")}; status --json clients: ${JSON.stringify(clients)}`);
    for (const turn of turns) expect(turn.sampling).toMatchObject({ top_p: 1, top_k: -1, onPolicy: true });
    expect(clients.map((entry) => entry.client)).toContain("OpenAI/JS");
    expect(clients.every((entry) => entry.off_policy === 0)).toBe(true);
  }, 120_000);

  it("judged: explicit thumbs scored without the judge, samples made", async () => {
    const judgements = await readJsonl(path.join(runDir, "judgements.jsonl"));
    expect(judgements.length).toBeGreaterThanOrEqual(6);
    const explicit = judgements.filter((line) => line.explicit?.source === "message");
    expect(explicit.map((line) => line.explicit.score).sort()).toEqual([-1, 1, 1]);
    expect(judgements.filter((line) => line.sample).length).toBeGreaterThanOrEqual(2);
  });
});
