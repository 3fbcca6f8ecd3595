// `openclaw-rl start` as a real process with engine.kind external against fixture SGLang servers: the banner,
// `status --json`, the proxy's 503 + Retry-After while the policy is down and its recovery, and Ctrl-C; a training
// pause recorded in the run folder before this start (a restart) said on its terminal and status, and resumed.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAUSE_RECORD_FILE } from "../../orchestrator/bridge/training-pause-record.ts";
import { eventually, FIXTURE_BIN, freePort, Harness } from "./harness.ts";

const BIN = path.resolve(FIXTURE_BIN, "../../../bin/openclaw-rl.mjs");
const PAUSED_SINCE = Date.UTC(2026, 10, 27, 20, 30);
const PAUSE_MESSAGE = "held-out score of version 2 (0.0% [0.0%, 0.0%]) significantly below best version 0 (100.0% [100.0%, 100.0%]): paired difference −100.0 points [−100.0, −100.0] over 6 sessions";

function fakeSglang(harness: Harness, port: number) {
  return execa(path.join(FIXTURE_BIN, "python3"), ["-m", "sglang.launch_server", "--model-path", "/m", "--port", String(port)], { env: harness.environment, reject: false });
}

describe("openclaw-rl start (engine external)", () => {
  const harness = new Harness();
  let start: ResultPromise;
  let policy: ResultPromise;
  let judge: ResultPromise;
  let policyPort: number;
  let proxyPort: number;
  let stdout = "";
  let stderr = "";

  beforeAll(async () => {
    [policyPort, proxyPort] = [await freePort(), await freePort()];
    const [judgePort, adminPort] = [await freePort(), await freePort()];
    policy = fakeSglang(harness, policyPort);
    judge = fakeSglang(harness, judgePort);
    const recipeFile = path.join(harness.root, "external.yaml");
    writeFileSync(
      recipeFile,
      [
        "name: external-test",
        "method: binary",
        "model: { path: builtin:qwen3, tokenizer_path: builtin:qwen3 }",
        `judge: { launch: external, url: "http://127.0.0.1:${judgePort}" }`,
        `engine: { kind: external, policy_url: "http://127.0.0.1:${policyPort}" }`,
        `proxy: { port: ${proxyPort}, admin_port: ${adminPort} }`,
        `records: { dir: ${harness.runDir} }`,
      ].join("\n"),
    );
    // evaluation.stop_if_worse paused training in an earlier start on this folder
    const drop = { version: "2", meanScore: 0, scoreCi: { low: 0, high: 0 }, bestVersion: "0", bestMeanScore: 1, bestScoreCi: { low: 1, high: 1 }, difference: -1, differenceCi: { low: -1, high: -1 }, pairs: 6 };
    mkdirSync(harness.runDir, { recursive: true });
    writeFileSync(path.join(harness.runDir, PAUSE_RECORD_FILE), JSON.stringify({ version: 1, reason: "held-out-worse", since: PAUSED_SINCE, message: PAUSE_MESSAGE, drop }));
    start = execa(process.execPath, [BIN, "start", "--recipe", recipeFile], { env: { ...process.env, OPENCLAW_RL_API_KEY: "" }, reject: false, buffer: false });
    start.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    start.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await eventually(() => stdout.includes("Stop               Ctrl-C"), `the banner (stderr: ${stderr})`);
  });

  afterAll(async () => {
    start?.kill("SIGKILL");
    policy?.kill("SIGKILL");
    judge?.kill("SIGKILL");
  });

  it("prints one banner with the endpoint, key variable, openclaw-config, logs and status", () => {
    expect(stdout.match(/openclaw-rl is running/g)).toHaveLength(1);
    expect(stdout).toContain(`OpenClaw endpoint  http://127.0.0.1:${proxyPort}/v1`);
    expect(stdout).toContain("$OPENCLAW_RL_API_KEY");
    expect(stdout).toContain(`openclaw-rl openclaw-config --recipe ${path.join(harness.runDir, "recipe.resolved.yaml")} --write`);
    expect(stdout).toContain(`openclaw-rl status --run ${harness.runDir}`);
    expect(stdout).toContain("Engines            policy ready, judge ready");
    expect(stdout).not.toContain("STAND-IN");
    expect(readFileSync(path.join(harness.runDir, "recipe.resolved.yaml"), "utf8")).toContain("name: external-test");
    expect(statSync(path.join(harness.runDir, "admin-token")).mode & 0o777).toBe(0o600);
  });

  it("status --json reports the run", async () => {
    const result = await execa(process.execPath, [BIN, "status", "--run", harness.runDir, "--json"]);
    const status = JSON.parse(result.stdout);
    expect(status).toMatchObject({
      ready: true,
      method: "binary",
      weight_version: expect.anything(),
      sessions: 0,
      turns: { main: 0, side: 0 },
      samples: { made: 0, ready: 0, in_training: 0, trained: 0, dropped: { stale: 0, invalid: 0 }, delivered: 0 },
      batches: 0,
      engines: [
        { name: "policy", state: "ready" },
        { name: "judge", state: "ready" },
      ],
    });
  });

  it("a pause recorded before this start: said on its terminal and on status until resume-training", async () => {
    const message = `${PAUSE_MESSAGE} (paused before a restart, since ${new Date(PAUSED_SINCE).toISOString()})`;
    expect(stderr).toContain(`⏸ training paused: ${message}; the proxy keeps serving. Resume: \`npx openclaw-rl resume-training --run ${harness.runDir}\``);
    const text = (await execa(process.execPath, [BIN, "status", "--run", harness.runDir])).stdout;
    expect(text).toContain(`TRAINING PAUSED: ${message}`);
    const resumed = await execa(process.execPath, [BIN, "resume-training", "--run", harness.runDir]);
    expect(resumed.stdout).toBe(`✓ training resumed (paused since ${new Date(PAUSED_SINCE).toISOString()}: ${message})`); // (execa strips the final newline)
    expect(existsSync(path.join(harness.runDir, PAUSE_RECORD_FILE))).toBe(false);
    await eventually(() => stderr.includes("▶ training resumed (POST /training/resume)"), "start's resumed line");
    const status = JSON.parse((await execa(process.execPath, [BIN, "status", "--run", harness.runDir, "--json"])).stdout);
    expect(status.training).toEqual({ paused: false, since: null, message: null, resume: null });
  });

  it("answers 503 with Retry-After and the reason while the policy is down, and recovers by itself", async () => {
    policy.kill("SIGKILL");
    await policy;
    const refused = await eventually(async () => {
      const response = await fetch(`http://127.0.0.1:${proxyPort}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "qwen3-4b", messages: [{ role: "user", content: "hi" }] }),
      });
      // a request that reaches the dead engine first is a 503 too; wait for the gate's own
      const body = response.status === 503 ? JSON.stringify(await response.json()) : "";
      return /not ready/.test(body) && { response, body };
    }, "the gate's 503");
    expect(Number(refused.response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body).toMatch(/policy is down: not answering: GET http:\/\/127\.0\.0\.1:\d+\/health/);
    policy = fakeSglang(harness, policyPort);
    await eventually(async () => (await fetch(`http://127.0.0.1:${proxyPort}/readyz`)).status === 200, "ready again");
  });

  it("stops cleanly on Ctrl-C", async () => {
    start.kill("SIGINT");
    const result = await start;
    expect(result.exitCode).toBe(0);
    expect(stderr).toMatch(/stopping \(SIGINT\)/);
    expect(stderr).toMatch(/· stopped/);
    await expect(fetch(`http://127.0.0.1:${proxyPort}/readyz`)).rejects.toThrow();
  });
});
