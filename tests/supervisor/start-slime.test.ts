// `openclaw-rl start` with engine slime end to end on the fixture `ray` / `python3`: the real plan (Ray head with
// --block, `ray job submit` with the bridge in its runtime env, a standalone judge), the driver's hello on the
// real bridge, the banner, `status --json`, and Ctrl-C's stop order as the fixtures saw it.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildInstallation } from "../support/engine-install.ts";
import { eventually, FIXTURE_BIN, freePort, Harness } from "./harness.ts";

const BIN = path.resolve(FIXTURE_BIN, "../../../bin/openclaw-rl.mjs");

describe("openclaw-rl start (engine slime, fixture ray + python3)", () => {
  const harness = new Harness();
  let start: ResultPromise;
  let stdout = "";
  let stderr = "";

  beforeAll(async () => {
    // start's checks probe the installed slime and SGLang: a fake fork installation, probed for real
    const installation = await buildInstallation(path.join(harness.root, "install"), "fork", "jan");
    const slimeRoot = installation.root;
    const [proxyPort, adminPort, judgePort, rayPort, dashboardPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const recipeFile = path.join(harness.root, "slime.yaml");
    writeFileSync(
      recipeFile,
      [
        "name: slime-fixture",
        "method: binary",
        "model: { path: builtin:qwen3, tokenizer_path: builtin:qwen3 }",
        `judge: { launch: standalone, port: ${judgePort} }`,
        `cluster: { ray_port: ${rayPort}, dashboard_port: ${dashboardPort} }`,
        "training: { lora: {}, backend: fsdp }",
        `engine: { kind: slime, slime: { root: ${slimeRoot}, ray: ${FIXTURE_BIN}/ray, python: ${FIXTURE_BIN}/python3 } }`,
        `proxy: { port: ${proxyPort}, admin_port: ${adminPort} }`,
        `records: { dir: ${harness.runDir} }`,
      ].join("\n"),
    );
    start = execa(process.execPath, [BIN, "start", "--recipe", recipeFile], { env: { ...process.env, ...harness.environment, FIXTURE_PROBE_PYTHON: installation.python, OPENCLAW_RL_API_KEY: "" }, reject: false, buffer: false });
    start.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    start.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await eventually(() => stdout.includes("Stop               Ctrl-C"), `the banner (stderr: ${stderr})`);
  });

  afterAll(() => {
    start?.kill("SIGKILL");
  });

  it("launches the plan, waits for the job's hello on the bridge, and prints the banner", async () => {
    expect(stdout).toContain("Engines            ray-head ready, slime-job ready, judge ready");
    const submit = harness.find((event) => event.who === "ray" && event.argv?.[1] === "submit")!;
    const runtimeEnv = JSON.parse(submit.argv![submit.argv!.indexOf("--runtime-env-json") + 1]!);
    const bridge = JSON.parse(readFileSync(path.join(harness.runDir, "bridge.json"), "utf8"));
    expect(runtimeEnv.env_vars.OPENCLAW_RL_BRIDGE).toBe(bridge.url);
    const driver = harness.find((event) => event.who === "slime" && event.event === "start")!;
    expect(driver.env!.OPENCLAW_RL_BRIDGE_TOKEN).toBe(bridge.token); // through the Ray head's environment, not argv
    expect(submit.argv!.join(" ")).not.toContain(bridge.token);
    // the job logs the bridge's answer after the bridge took its hello (and the banner may come first)
    const log = path.join(harness.runDir, "logs", "slime-job.log");
    await eventually(() => readFileSync(log, "utf8").includes("hello → 200"), "the job's log line of the bridge's answer");
  });

  it("status --json lists the engines in launch order", async () => {
    const result = await execa(process.execPath, [BIN, "status", "--run", harness.runDir, "--json"]);
    const status = JSON.parse(result.stdout);
    expect(status.ready).toBe(true);
    expect(status.engines.map((engine: { name: string; state: string }) => `${engine.name}:${engine.state}`)).toEqual(["ray-head:ready", "slime-job:ready", "judge:ready"]);
  });

  it("Ctrl-C: ray job stop → STOPPED → SIGTERM of the Ray head's leader → SIGTERM of the judge; never `ray stop`; nothing left", async () => {
    start.kill("SIGINT");
    const result = await start;
    expect(result.exitCode).toBe(0);
    const order = harness
      .events()
      .map((event) => {
        if (event.who === "ray" && event.argv?.[0] === "job" && event.argv?.[1] === "stop") return "ray job stop";
        if (event.who === "raylet" && event.event === "job-exit") return `job ${event.status}`;
        if (event.who === "ray" && event.argv?.[0] === "stop") return "ray stop";
        if (event.who === "ray" && event.event === "signal-SIGTERM") return "ray head SIGTERM";
        if (event.who === "raylet" && event.event === "signal-SIGTERM") return "raylet SIGTERM";
        if (event.who === "sglang" && event.event === "signal-SIGTERM") return "judge SIGTERM";
        return null;
      })
      .filter(Boolean);
    // `ray stop` would stop every Ray of the machine's user by process name: the head's leader stops this run's
    expect(order).toEqual(["ray job stop", "job STOPPED", "ray head SIGTERM", "raylet SIGTERM", "judge SIGTERM"]);
    expect(stderr).toMatch(/judge was stopped by openclaw-rl \(SIGTERM\)/);
    expect(JSON.parse(readFileSync(path.join(harness.runDir, "pids.json"), "utf8")).children).toEqual([]);
  });
});
