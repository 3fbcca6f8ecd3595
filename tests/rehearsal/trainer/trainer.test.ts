// The stand-in trainer process against a stand-in policy server and a fake rollout function: slime's train_async
// order (batch r+1 requested before training on r ends), one pause/load/continue weight update per batch with
// versions 1, 2, …, and a learning style softmax (binary rewards push the rejected style down).
import { readFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { HANG_GUARD_MS } from "../../support/hang-guard.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTokenizerFiles } from "../../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../../lib/model/model-tokenizer.ts";
import { PolicyResponder } from "../../../rehearsal/policy/responder.ts";
import { StandinSglangServer } from "../../../rehearsal/sglang/server.ts";

let server: StandinSglangServer;
let policy: PolicyResponder;

beforeAll(async () => {
  const tokenizer = new ModelTokenizer(await loadTokenizerFiles("builtin:qwen3"));
  policy = await PolicyResponder.create(tokenizer, { seed: 11 });
  server = new StandinSglangServer({ tokenizer, responder: policy });
  await server.start();
});
afterAll(() => server.close());

interface Event {
  event: string;
  time: number;
  version?: string;
  rollout_id?: number;
  probabilities?: Record<string, number>;
  styles?: Record<string, number>;
}

describe("rehearsal/trainer/trainer.py", () => {
  it("runs the rollout function in train_async order, updates weights per batch and learns from rewards", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "standin-trainer-"));
    const log = path.join(folder, "rollout.log");
    const rollouts = 5;
    const result = await execa(
      "/usr/bin/python3",
      ["rehearsal/trainer/trainer.py", "--policy-url", server.url, "--judge-url", server.url, "--method", "binary", "--batch-size", "8", "--train-seconds", "0.2", "--num-rollout", String(rollouts), "--run-dir", folder, "--rollout-function-path", "fake_rollout.generate_rollout"],
      { env: { PYTHONPATH: ["native", "tests/rehearsal/fixtures"].join(path.delimiter), FAKE_ROLLOUT_LOG: log }, reject: false, timeout: HANG_GUARD_MS },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("the model is a stand-in");
    const events = result.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Event);
    const calls = (await readFile(log, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { call: string; rollout_id: number; t: number });

    // versions: the initial sync, then one per batch, and the server saw each through pause → load → continue
    expect(events.filter((event) => event.event === "weights-updated").map((event) => event.version)).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(await (await fetch(`${server.url}/get_weight_version`)).json()).toEqual({ weight_version: "6" });
    expect(server.state.counters.weightUpdates).toBe(6);
    expect(server.state.paused).toBe(false);

    // train_async order: rollout r+1 starts before training on r finishes; the update after r waits for r+1's end
    const trained = events.filter((event) => event.event === "trained");
    expect(trained.map((event) => event.rollout_id)).toEqual([0, 1, 2, 3, 4]);
    for (const event of trained.slice(0, -1)) {
      const nextStart = calls.find((call) => call.call === "start" && call.rollout_id === event.rollout_id! + 1)!;
      expect(nextStart.t).toBeLessThan(event.time);
    }
    expect(calls.filter((call) => call.call === "start").map((call) => call.rollout_id)).toEqual([0, 1, 2, 3, 4]);

    // learning: the AI-flavoured style (reward -1) loses probability, in the trainer and in the served policy
    const first = trained[0]!.probabilities!.ai!;
    const last = trained.at(-1)!.probabilities!.ai!;
    expect(last).toBeLessThan(first);
    expect(last).toBeLessThan(0.15);
    const served = (policy.describe() as { probabilities: Record<string, number> }).probabilities.ai!;
    expect(served).toBeCloseTo(last, 3);
  });

  it("with learning off only bumps the version (update_weight_version) and leaves the policy alone", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "standin-trainer-"));
    const before = (policy.describe() as { logits: number[]; updates: number });
    const result = await execa(
      "/usr/bin/python3",
      ["rehearsal/trainer/trainer.py", "--policy-url", server.url, "--judge-url", server.url, "--method", "combine", "--batch-size", "2", "--train-seconds", "0", "--num-rollout", "2", "--learn", "off", "--run-dir", folder, "--rollout-function-path", "fake_rollout.generate_rollout"],
      { env: { PYTHONPATH: ["native", "tests/rehearsal/fixtures"].join(path.delimiter), FAKE_ROLLOUT_LOG: path.join(folder, "log") }, reject: false, timeout: HANG_GUARD_MS },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("only sleeps");
    const after = policy.describe() as { logits: number[]; updates: number };
    expect(after.logits).toEqual(before.logits);
    expect(after.updates).toBe(before.updates);
    // a fresh trainer counts from 1 again, as a restarted slime job does
    expect(server.state.weightVersion).toBe("3");
  });

  it("refuses a policy URL that is not the stand-in policy when learning is on", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "standin-trainer-"));
    const judgeLike = new StandinSglangServer({ tokenizer: server.tokenizer, responder: { reply: () => ({ text: "x" }) } });
    await judgeLike.start();
    try {
      const result = await execa(
        "/usr/bin/python3",
        ["rehearsal/trainer/trainer.py", "--policy-url", judgeLike.url, "--judge-url", judgeLike.url, "--method", "opd", "--batch-size", "1", "--num-rollout", "1", "--learn", "on", "--run-dir", folder, "--rollout-function-path", "fake_rollout.generate_rollout"],
        { env: { PYTHONPATH: ["native", "tests/rehearsal/fixtures"].join(path.delimiter), FAKE_ROLLOUT_LOG: path.join(folder, "log") }, reject: false, timeout: HANG_GUARD_MS },
      );
      expect(result.exitCode).not.toBe(0);
      expect(result.stderr).toContain("is not the stand-in policy");
    } finally {
      await judgeLike.close();
    }
  });
});

const TEACHER_SCRIPT = `
import json, sys
from types import SimpleNamespace
import torch
from openclaw_rl import teacher_carriage
import trainer
url, ids = sys.argv[1], json.loads(sys.argv[2])
hinted, carried, plain = (SimpleNamespace(index=n, response_length=3, multimodal_train_inputs=None, teacher_log_probs=None) for n in range(3))
teacher_carriage.attach(hinted, ids, None)
teacher_carriage.attach(carried, None, torch.tensor([-0.5, -0.25, -0.125]))
filled = trainer.StandinTeacher(url, 0.6).fill([hinted, carried, plain])
print(json.dumps({"filled": filled, "hinted": hinted.teacher_log_probs.tolist(), "carried": carried.teacher_log_probs.tolist(), "plain": plain.teacher_log_probs}))
`;

describe("the stand-in trainer's teacher (opd.teacher trainer)", () => {
  it("scores the response of a sample carrying teacher tokens by the judge stand-in's forward, keeps carried log-probs", async () => {
    const ids = await server.tokenizer.encode("<|im_start|>user\nHi, be brief.<|im_end|>\n<|im_start|>assistant\nHello there, friend.");
    const forward = await fetch(`${server.url}/standin/teacher_forward`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input_ids: ids, temperature: 0.6 }) });
    const expected = ((await forward.json()) as { token_logprobs: number[] }).token_logprobs.slice(-3);
    const result = await execa("/usr/bin/python3", ["-c", TEACHER_SCRIPT, server.url, JSON.stringify(ids)], {
      env: { PYTHONPATH: ["native", "rehearsal/trainer"].join(path.delimiter) },
      reject: false,
      timeout: HANG_GUARD_MS,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const filled = JSON.parse(result.stdout) as { filled: number; hinted: number[]; carried: number[]; plain: null };
    expect(filled.filled).toBe(1);
    expect(filled.hinted).toHaveLength(3);
    filled.hinted.forEach((value, index) => expect(value).toBeCloseTo(expected[index]!, 5)); // float32 on the Python side
    expect(filled.carried).toEqual([-0.5, -0.25, -0.125]);
    expect(filled.plain).toBeNull();
  });
});

describe("rehearsal/trainer/trainer.py start-up", () => {
  it("waits for a policy server that comes up after it (start launches them together) instead of crashing", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "standin-trainer-late-"));
    const tokenizer = new ModelTokenizer(await loadTokenizerFiles("builtin:qwen3"));
    const late = new StandinSglangServer({ tokenizer, responder: await PolicyResponder.create(tokenizer, { seed: 5 }) });
    const { port } = await late.start();
    const url = late.url;
    await late.close(); // the port is known but nothing listens yet
    const trainer = execa(
      "/usr/bin/python3",
      ["rehearsal/trainer/trainer.py", "--policy-url", url, "--judge-url", url, "--method", "binary", "--batch-size", "2", "--train-seconds", "0", "--num-rollout", "1", "--run-dir", folder, "--rollout-function-path", "fake_rollout.generate_rollout"],
      { env: { PYTHONPATH: ["native", "tests/rehearsal/fixtures"].join(path.delimiter), FAKE_ROLLOUT_LOG: path.join(folder, "rollout.log") }, reject: false, timeout: HANG_GUARD_MS },
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const server = new StandinSglangServer({ tokenizer, responder: await PolicyResponder.create(tokenizer, { seed: 5 }), port });
    await server.start();
    try {
      const result = await trainer;
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toContain('"event": "weights-updated"');
    } finally {
      await server.close();
    }
  });
});

describe("rehearsal/trainer/trainer.py without torch", () => {
  it("says so and only fetches and acknowledges batches over the real bridge", async () => {
    const { FixtureProcess } = await import("../../bridge/fixture-process.ts");
    const folder = await mkdtemp(path.join(tmpdir(), "standin-trainer-notorch-"));
    const bridge = await FixtureProcess.start(folder, "--samples", "4", "--teacher", "mixed");
    try {
      const result = await execa(
        "/usr/bin/python3",
        ["rehearsal/trainer/trainer.py", "--policy-url", server.url, "--judge-url", server.url, "--method", "combine", "--batch-size", "2", "--train-seconds", "0", "--num-rollout", "2", "--run-dir", folder],
        {
          env: { PYTHONPATH: ["tests/rehearsal/fixtures/no_torch", "native"].join(path.delimiter), OPENCLAW_RL_BRIDGE: bridge.info.url, OPENCLAW_RL_BRIDGE_TOKEN: bridge.info.token },
          reject: false,
          timeout: HANG_GUARD_MS,
        },
      );
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toContain("torch is not importable by this Python: no learning");
      const trained = result.stdout.split("\n").filter((line) => line.includes('"event": "trained"'));
      expect(trained).toHaveLength(2);
      const stats = await bridge.command("stats");
      expect(stats.hello).toBeTruthy();
      expect((stats.events as string[]).filter((type) => type === "batch-acknowledged")).toHaveLength(2);
    } finally {
      await bridge.kill9();
    }
  });
});
