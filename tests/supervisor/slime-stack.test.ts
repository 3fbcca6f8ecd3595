// Integration: Ray head + slime job + standalone judge through the fixture `ray` / `python3`: the argv and
// env each child receives, readiness gating, and the clean stop order (ray job stop → the head's leader → SIGTERM).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LaunchPlan } from "../../contracts/plan.ts";
import { defineChildren } from "../../launchers/supervisor/plan-children.ts";
import { isProcessAlive } from "../../launchers/supervisor/process-group.ts";
import { Supervisor, type StopReport } from "../../launchers/supervisor/supervisor.ts";
import { eventually, freePort, Harness, slimeProcesses, slimeRecipe } from "./harness.ts";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";

describe("supervising a slime stack", () => {
  const harness = new Harness();
  const states: string[] = [];
  let supervisor: Supervisor;
  let gateBeforeReady: ReturnType<Supervisor["trafficGate"]>;
  let report: StopReport;
  let judgePid: number;

  beforeAll(async () => {
    const recipe = slimeRecipe({ rayPort: await freePort(), dashboardPort: await freePort(), judgePort: await freePort(), proxyPort: await freePort(), adminPort: await freePort(), runDir: harness.runDir });
    mkdirSync(harness.runDir, { recursive: true });
    const plan: LaunchPlan = { method: "binary", engine: "slime", placement: null, processes: slimeProcesses(recipe, harness.root), notes: [] };
    supervisor = new Supervisor({
      runDir: harness.runDir,
      baseEnvironment: { ...harness.environment, FAKE_SGLANG_WARMUP_MS: "300" },
      stopGraceMs: 2000,
      onState: (name, state) => states.push(`${name}:${state}`),
    });
    const definitions = defineChildren(plan, recipe, { bridgeHello: () => harness.hello(), baseEnvironment: harness.environment, recheckMs: 200 });
    await supervisor.start(definitions);
    gateBeforeReady = supervisor.trafficGate();
    expect(await supervisor.waitAllReady(HANG_GUARD_MS)).toBe(true); // (fixture processes, on two cores shared with the rest of the suite)
    judgePid = supervisor.status("judge")!.pid!;
  });

  afterAll(async () => {
    await supervisor?.stop({ force: true });
  });

  it("gates traffic until every engine is ready, with the reason", () => {
    expect(gateBeforeReady.ready).toBe(false);
    expect(gateBeforeReady.reason).toMatch(/(ray-head|slime-job|judge) is starting/);
    expect(gateBeforeReady.retryAfterS).toBeGreaterThan(0);
    expect(supervisor.trafficGate()).toEqual({ ready: true, reason: "all engines ready", retryAfterS: 0 });
    expect(states).toEqual(expect.arrayContaining(["ray-head:ready", "slime-job:ready", "judge:ready"]));
  });

  it("starts the job only after the Ray head is ready, with the planned argv and env", () => {
    const events = harness.events();
    const head = events.find((event) => event.who === "ray" && event.argv?.[0] === "start")!;
    expect(head.argv).toEqual(expect.arrayContaining(["--head", "--dashboard-port", "--disable-usage-stats"]));
    expect(head.env?.PYTHONUNBUFFERED).toBe("1");
    const submit = events.findIndex((event) => event.who === "ray" && event.argv?.[1] === "submit");
    const raylet = events.findIndex((event) => event.who === "raylet" && event.event === "up");
    expect(raylet).toBeGreaterThanOrEqual(0);
    expect(submit).toBeGreaterThan(raylet);
    const driver = events.find((event) => event.who === "slime" && event.event === "start")!;
    expect(driver.argv).toEqual(["train_async.py", "--actor-num-gpus-per-node", "4", "--save", path.join(harness.root, "checkpoints"), "--rollout-batch-size", "16"]);
    expect(driver.env).toMatchObject({ PYTHONPATH: "/opt/Megatron-LM", CUDA_DEVICE_MAX_CONNECTIONS: "1", OPENCLAW_RL_BRIDGE_TOKEN: "secret-token" });
    const judge = events.find((event) => event.who === "sglang" && event.event === "start")!;
    expect(judge.argv).toEqual(expect.arrayContaining(["-m", "sglang.launch_server", "--model-path", "/models/judge", "--tp", "2"]));
    expect(judge.env).toMatchObject({ CUDA_VISIBLE_DEVICES: "6,7", SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION: "false" });
  });

  it("logs each child as pino JSON lines with its own output forwarded", async () => {
    // (lines reach the file asynchronously: wait for the forwarded one, then check every line is JSON)
    const file = path.join(harness.runDir, "logs", "slime-job.log");
    await eventually(() => readFileSync(file, "utf8").includes("Router launched at"), "the job's forwarded output in its log");
    const log = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(log.some((entry) => entry.child === "slime-job" && /Router launched at/.test(entry.msg) && entry.stream === "stdout")).toBe(true);
    expect(log.some((entry) => entry.supervisor && /^started pid/.test(entry.msg))).toBe(true);
    const pids = JSON.parse(readFileSync(path.join(harness.runDir, "pids.json"), "utf8"));
    expect(pids.orchestratorPid).toBe(process.pid);
    expect(pids.children.map((child: { name: string }) => child.name)).toContain("judge");
  });

  it("stops in order: ray job stop, wait STOPPED, SIGTERM of the Ray head's leader (never `ray stop`), then of the judge", async () => {
    report = await supervisor.stop();
    const label = (event: ReturnType<Harness["events"]>[number]): string | null => {
      if (event.who === "ray" && event.argv?.[0] === "job" && event.argv?.[1] === "stop") return "ray job stop";
      if (event.who === "raylet" && event.event === "job-exit") return `job ${event.status}`;
      if (event.who === "ray" && event.argv?.[0] === "stop") return "ray stop";
      if (event.who === "ray" && event.event === "signal-SIGTERM") return "ray head SIGTERM";
      if (event.who === "raylet" && event.event === "signal-SIGTERM") return "raylet SIGTERM";
      if (event.who === "sglang" && event.event === "signal-SIGTERM") return "judge SIGTERM";
      return null;
    };
    const order = harness.events().map(label).filter((value): value is string => value !== null);
    expect(order).toEqual(["ray job stop", "job STOPPED", "ray head SIGTERM", "raylet SIGTERM", "judge SIGTERM"]);
    // the job's driver got the job stop's SIGTERM (its shell may be reaped before it logs it)
    expect(harness.events().some((event) => event.who === "slime" && event.event === "signal-SIGTERM")).toBe(true);
    expect(report.forced).toBe(false);
    const judge = report.results.find((result) => result.name === "judge")!;
    expect(judge).toMatchObject({ killedByUs: true, signal: "SIGTERM", ok: true });
    expect(judge.summary).toMatch(/judge was stopped by openclaw-rl \(SIGTERM\)/);
    expect(isProcessAlive(judgePid)).toBe(false);
    expect(supervisor.statuses().map((status) => status.state)).toEqual(["stopped", "stopped", "stopped"]);
    expect(existsSync(path.join(harness.root, "ray-state", "state.json"))).toBe(false);
    await eventually(() => !supervisor.trafficGate().ready, "gate closed");
  });
});
