// training.max_wait_s end to end on loopback: the bridge hands out a partial batch (one sample of a batch of 4) once
// it has waited, the stand-in trainer fetches it through the real rollout function, trains one step on it, and
// the stand-in policy serves a new weight version that learned from it.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTokenizerFiles } from "../../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../../lib/model/model-tokenizer.ts";
import { PolicyResponder } from "../../../rehearsal/policy/responder.ts";
import { StandinSglangServer } from "../../../rehearsal/sglang/server.ts";
import { makeSample } from "../../bridge/sample-factory.ts";
import { openBridgeLoopback, type BridgeLoopback } from "../../status/bridge-loopback.ts";
import { HANG_GUARD_MS } from "../../support/hang-guard.ts";

const MAX_WAIT_MS = 300;
const BATCH = 4;

let server: StandinSglangServer;
let policy: PolicyResponder;
let loopback: BridgeLoopback;

beforeAll(async () => {
  const tokenizer = new ModelTokenizer(await loadTokenizerFiles("builtin:qwen3"));
  policy = await PolicyResponder.create(tokenizer, { seed: 11 });
  server = new StandinSglangServer({ tokenizer, responder: policy });
  await server.start();
  loopback = await openBridgeLoopback("standin-short-batch-", MAX_WAIT_MS);
});
afterAll(async () => {
  await loopback.close();
  await server.close();
});

/** The AI-flavoured reply style's probability in the served stand-in policy. */
const servedAi = () => (policy.describe() as { probabilities: Record<string, number> }).probabilities.ai!;

describe("the stand-in trainer on a partial batch (training.max_wait_s)", () => {
  it("trains one step on the short batch and the policy serves a new weight version that learned from it", async () => {
    const { style_token_ids: styles, marker_ids: marker } = policy.describe() as { style_token_ids: number[]; marker_ids: number[] };
    // one turn that chose the AI-flavoured style (styles are plain, bulleted, ai) and was rejected
    const response = [...marker, styles[2]!, 42];
    const sample = { ...makeSample(0, { reward: -1 }), tokens: [11, 12, 13, 14, ...response], responseLength: response.length };
    sample.lossMask = response.map(() => 1);
    sample.rolloutLogProbs = response.map(() => -0.5);
    sample.weightVersions = response.map(() => "1");
    await loopback.store.put(sample);
    const delivered: number[] = [];
    loopback.bus.subscribe((event) => void (event.type === "batch-delivered" && delivered.push(event.size)));
    const before = servedAi();

    const folder = await mkdtemp(path.join(tmpdir(), "standin-short-batch-"));
    const result = await execa(
      "/usr/bin/python3",
      ["rehearsal/trainer/trainer.py", "--policy-url", server.url, "--judge-url", server.url, "--method", "binary", "--batch-size", String(BATCH), "--train-seconds", "0", "--num-rollout", "1", "--learn", "on", "--run-dir", folder],
      { env: { PYTHONPATH: "native", OPENCLAW_RL_BRIDGE: loopback.endpoint.url, OPENCLAW_RL_BRIDGE_TOKEN: loopback.endpoint.token }, reject: false, timeout: HANG_GUARD_MS },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { event: string; samples?: number; version?: string; styles?: Record<string, number> });

    // the bridge handed out one sample where four were asked, and the trainer trained exactly that
    expect(delivered).toEqual([1]);
    const trained = events.filter((event) => event.event === "trained");
    expect(trained).toHaveLength(1);
    expect(trained[0]).toMatchObject({ samples: 1, styles: { ai: 1 } });
    // the initial sync, then the weights after the step, served by the policy
    expect(events.filter((event) => event.event === "weights-updated").map((event) => event.version)).toEqual(["1", "2"]);
    expect(await (await fetch(`${server.url}/get_weight_version`)).json()).toEqual({ weight_version: "2" });
    expect(servedAi()).toBeLessThan(before);
  });
});
