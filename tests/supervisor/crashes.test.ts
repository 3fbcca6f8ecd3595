// Crashes: the standalone judge crashes and comes back with backoff (the gate closes, then reopens by
// itself); a slime job crash is reported with the reason and last lines, and resubmitted from its last
// checkpoint only when training.restart_on_crash is set.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LaunchPlan } from "../../contracts/plan.ts";
import { defineChildren } from "../../launchers/supervisor/plan-children.ts";
import { Supervisor } from "../../launchers/supervisor/supervisor.ts";
import { eventually, freePort, Harness, slimeProcesses, slimeRecipe } from "./harness.ts";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";

let running: Supervisor[] = [];
afterEach(async () => {
  await Promise.all(running.map((supervisor) => supervisor.stop({ force: true })));
  running = [];
});

async function startStack(options: { restartOnCrash?: boolean; only?: string[]; hungAfterMs?: { judge?: number; slimeJob?: number } } = {}) {
  const harness = new Harness();
  mkdirSync(harness.runDir, { recursive: true });
  const recipe = slimeRecipe({ rayPort: await freePort(), dashboardPort: await freePort(), judgePort: await freePort(), proxyPort: await freePort(), adminPort: await freePort(), runDir: harness.runDir, restartOnCrash: options.restartOnCrash });
  const processes = slimeProcesses(recipe, harness.root).filter((spec) => !options.only || options.only.includes(spec.name));
  const plan: LaunchPlan = { method: "binary", engine: "slime", placement: null, processes, notes: [] };
  const terminal: string[] = [];
  const supervisor = new Supervisor({ runDir: harness.runDir, baseEnvironment: harness.environment, stopGraceMs: 1000, terminal: (line) => terminal.push(line) });
  running.push(supervisor);
  await supervisor.start(defineChildren(plan, recipe, { bridgeHello: () => harness.hello(), baseEnvironment: harness.environment, recheckMs: 100, restartInitialMs: 300, hungAfterMs: options.hungAfterMs }));
  expect(await supervisor.waitAllReady(HANG_GUARD_MS)).toBe(true);
  return { harness, supervisor, terminal };
}

describe("crashes", () => {
  it("restarts a crashed standalone judge with backoff; the gate closes with the reason and reopens", async () => {
    const { harness, supervisor } = await startStack({ only: ["judge"] });
    const firstPid = supervisor.status("judge")!.pid;
    harness.crash("judge");
    const closed = await eventually(() => {
      const gate = supervisor.trafficGate();
      return !gate.ready && gate;
    }, "gate closed");
    expect(closed.reason).toMatch(/judge is down: restarting in 0\.3s: judge exited with code 1 .*CUDA out of memory/);
    expect(closed.retryAfterS).toBe(5);
    await eventually(() => supervisor.trafficGate().ready, "gate reopened");
    const status = supervisor.status("judge")!;
    expect(status).toMatchObject({ state: "ready", restarts: 1 });
    expect(status.pid).not.toBe(firstPid);
    expect(status.lastResult).toMatchObject({ exitCode: 1, killedByUs: false, ok: false });
    expect(status.lastResult!.stderrTail.at(-1)).toMatch(/OutOfMemoryError/);
    expect(harness.events().filter((event) => event.who === "sglang" && event.event === "start")).toHaveLength(2);
  });

  it("stops and restarts a standalone judge that stays down longer than its limit, like a crash", async () => {
    const { harness, supervisor } = await startStack({ only: ["judge"], hungAfterMs: { judge: 1500 } });
    const firstPid = supervisor.status("judge")!.pid!;
    writeFileSync(path.join(harness.root, "unhealthy-judge"), String(firstPid)); // alive, but /health_generate → 503
    const closed = await eventually(() => {
      const gate = supervisor.trafficGate();
      return !gate.ready && gate;
    }, "gate closed");
    expect(closed.reason).toMatch(/^judge is down: not answering: GET http:\/\/127\.0\.0\.1:\d+\/health_generate → 503$/);
    await eventually(() => supervisor.status("judge")!.restarts === 1 && supervisor.trafficGate().ready, "judge restarted and the gate reopened");
    const status = supervisor.status("judge")!;
    expect(status.pid).not.toBe(firstPid);
    expect(status.lastResult).toMatchObject({ ok: false, killedByUs: false, signal: "SIGTERM" });
    expect(status.lastResult!.summary).toMatch(/^judge was down for [12]s \(GET .*\/health_generate → 503\), so it was stopped after/);
    expect(harness.events().filter((event) => event.who === "sglang" && event.event === "start")).toHaveLength(2);
    expect(harness.find((event) => event.who === "sglang" && event.event === "signal-SIGTERM" && event.pid === firstPid)).toBeDefined();
  });

  it("stops a slime job whose routers stay down longer than its limit with `ray job stop`, and resubmits it", async () => {
    const { harness, supervisor } = await startStack({ restartOnCrash: true, only: ["ray-head", "slime-job"], hungAfterMs: { slimeJob: 1500 } });
    const slime = harness.find((event) => event.who === "slime" && event.event === "start")!;
    writeFileSync(path.join(harness.root, "unhealthy-slime"), String(slime.pid));
    await eventually(() => supervisor.status("slime-job")!.state === "down", "job down");
    await eventually(() => supervisor.status("slime-job")!.restarts === 1 && supervisor.status("slime-job")!.state === "ready", "job resubmitted and ready");
    const stop = harness.indexOf((event) => event.who === "raylet" && event.event === "job-stop" && event.id === "openclaw-rl-test");
    const resubmit = harness.indexOf((event) => event.who === "raylet" && event.event === "job-start" && event.id === "openclaw-rl-test-r1");
    expect(stop).toBeGreaterThanOrEqual(0);
    expect(resubmit).toBeGreaterThan(stop);
    expect(supervisor.status("slime-job")!.lastResult!.summary).toMatch(/^slime-job was down for [12]s \(router not healthy: GET http:\/\/127\.0\.0\.1:\d+\/health → 503\), so it was stopped after/);
  });

  it("reports a crashed slime job with the reason and its last lines, and does not restart it by default", async () => {
    const { harness, supervisor, terminal } = await startStack({ only: ["ray-head", "slime-job"] });
    harness.crash("slime");
    const status = await eventually(() => {
      const job = supervisor.status("slime-job")!;
      return job.state === "failed" && job;
    }, "job failed");
    expect(status.detail).toMatch(/slime-job exited with code 1 .*RuntimeError: NCCL error in broadcast \(fixture crash\) \(no restart policy\)/);
    expect(status.lastResult!.outputTail.join("\n")).toMatch(/Traceback \(most recent call last\)/);
    expect(terminal.some((line) => /slime-job │ .*RuntimeError/.test(line))).toBe(true);
    expect(supervisor.trafficGate()).toMatchObject({ ready: false, retryAfterS: 60 });
    expect(harness.events().filter((event) => event.who === "ray" && event.argv?.[1] === "submit")).toHaveLength(1);
  });

  it("resubmits a crashed slime job from its last checkpoint when training.restart_on_crash is set", async () => {
    const { harness, supervisor } = await startStack({ restartOnCrash: true, only: ["ray-head", "slime-job"] });
    const first = harness.events().find((event) => event.who === "ray" && event.argv?.[1] === "submit")!.argv!;
    const checkpoints = first[first.indexOf("--save") + 1]!;
    // what Megatron leaves after a save: the iteration folder, then the tracker naming it
    mkdirSync(path.join(checkpoints, "iter_0000099"), { recursive: true });
    writeFileSync(path.join(checkpoints, "latest_checkpointed_iteration.txt"), "99");
    harness.crash("slime");
    await eventually(() => supervisor.status("slime-job")!.restarts === 1 && supervisor.status("slime-job")!.state === "ready", "job resubmitted and ready");
    const submits = harness.events().filter((event) => event.who === "ray" && event.argv?.[1] === "submit");
    expect(submits).toHaveLength(2);
    const second = submits[1]!.argv!;
    expect(second[second.indexOf("--submission-id") + 1]).toBe("openclaw-rl-test-r1");
    expect(second.slice(-2)).toEqual(["--load", checkpoints]);
    expect(harness.hello()!.load).toBe(checkpoints);
  });

  it("a crash before the first checkpoint resubmits without --load (the fork would assert on an empty folder every time)", async () => {
    const { harness, supervisor } = await startStack({ restartOnCrash: true, only: ["ray-head", "slime-job"] });
    const first = harness.events().find((event) => event.who === "ray" && event.argv?.[1] === "submit")!.argv!;
    mkdirSync(first[first.indexOf("--save") + 1]!, { recursive: true }); // slime made the folder, saved nothing yet
    harness.crash("slime");
    await eventually(() => supervisor.status("slime-job")!.restarts === 1 && supervisor.status("slime-job")!.state === "ready", "job resubmitted and ready");
    const second = harness.events().filter((event) => event.who === "ray" && event.argv?.[1] === "submit")[1]!.argv!;
    expect(second).not.toContain("--load");
    expect(harness.hello()!.load).toBeNull();
    expect(harness.events().filter((event) => event.who === "slime" && event.event === "load-assert")).toEqual([]);
  });
});
