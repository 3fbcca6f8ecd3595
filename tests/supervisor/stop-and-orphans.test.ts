// A forced stop (second Ctrl-C), SIGKILL after the grace period for a child that ignores SIGTERM, and the
// orchestrator itself killed with SIGKILL: nothing it started may outlive it.
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { LaunchPlan } from "../../contracts/plan.ts";
import { recipeSettingsOf } from "../../contracts/recipe.ts";
import { defineChildren } from "../../launchers/supervisor/plan-children.ts";
import { isProcessAlive } from "../../launchers/supervisor/process-group.ts";
import { Supervisor } from "../../launchers/supervisor/supervisor.ts";
import { eventually, freePort, Harness, slimeProcesses, slimeRecipe } from "./harness.ts";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";

async function stack(harness: Harness, judgeIgnoresSigterm: boolean) {
  mkdirSync(harness.runDir, { recursive: true });
  const recipe = slimeRecipe({ rayPort: await freePort(), dashboardPort: await freePort(), judgePort: await freePort(), proxyPort: await freePort(), adminPort: await freePort(), runDir: harness.runDir });
  const processes = slimeProcesses(recipe, harness.root).map((spec) => (spec.name === "judge" && judgeIgnoresSigterm ? { ...spec, env: { ...spec.env, FAKE_IGNORE_SIGTERM: "1" } } : spec));
  const plan: LaunchPlan = { method: "binary", engine: "slime", placement: null, processes, notes: [] };
  return { recipe, plan };
}

describe("stopping", () => {
  it("SIGKILLs a child that ignores SIGTERM once the grace period is over", async () => {
    const harness = new Harness();
    const { recipe, plan } = await stack(harness, true);
    plan.processes = plan.processes.filter((spec) => spec.name === "judge");
    const supervisor = new Supervisor({ runDir: harness.runDir, baseEnvironment: harness.environment, stopGraceMs: 400 });
    await supervisor.start(defineChildren(plan, recipe, { bridgeHello: () => null, baseEnvironment: harness.environment }));
    expect(await supervisor.waitAllReady(HANG_GUARD_MS)).toBe(true);
    const started = Date.now();
    const report = await supervisor.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(report.results[0]).toMatchObject({ name: "judge", signal: "SIGKILL", killedByUs: true, ok: true });
    expect(harness.events().some((event) => event.who === "sglang" && event.event === "signal-SIGTERM")).toBe(true);
  });

  it("a forced stop skips ray job stop and the Ray head's leader stop, never runs `ray stop`, and SIGKILLs at once", async () => {
    const harness = new Harness();
    const { recipe, plan } = await stack(harness, true);
    // a grace far longer than the bound: the forced stop is told from a graceful one by an order of magnitude, not by speed
    const supervisor = new Supervisor({ runDir: harness.runDir, baseEnvironment: harness.environment, stopGraceMs: 120_000 });
    await supervisor.start(defineChildren(plan, recipe, { bridgeHello: () => harness.hello(), baseEnvironment: harness.environment, recheckMs: 200 }));
    expect(await supervisor.waitAllReady(HANG_GUARD_MS)).toBe(true);
    const graceful = supervisor.stop();
    const started = Date.now();
    const report = await supervisor.stop({ force: true });
    await graceful;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(report.forced).toBe(true);
    const rayCalls = harness.events().filter((event) => event.who === "ray" && event.event === "invoked").map((event) => event.argv!.slice(0, 2).join(" "));
    expect(rayCalls.filter((call) => call.startsWith("stop"))).toEqual([]);
    expect(report.steps.filter((step) => step.includes("graceful stop"))).toEqual([]);
    // the raylet is in the head's process group (as Ray's are), so the group's SIGKILL took it too
    const rayletPid = harness.find((event) => event.who === "raylet" && event.event === "up")!.pid;
    await eventually(() => !isProcessAlive(rayletPid), "the raylet gone");
    const judge = report.results.find((result) => result.name === "judge")!;
    expect(judge).toMatchObject({ signal: "SIGKILL", killedByUs: true });
    expect(supervisor.statuses().every((status) => status.state === "stopped")).toBe(true);
  });

  it("children do not outlive an orchestrator killed with SIGKILL", async () => {
    const harness = new Harness();
    const { recipe, plan } = await stack(harness, false);
    const config = { runDir: harness.runDir, environment: harness.environment, plan, recipe: recipeSettingsOf(recipe), helloFile: harness.environment.FAKE_SLIME_HELLO_FILE };
    const host = execa(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "orphan-host.ts"), JSON.stringify(config)], { reject: false, buffer: false, stdout: "pipe" });
    const line = await new Promise<string>((resolve, reject) => {
      let text = "";
      host.stdout!.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n")) resolve(text.split("\n")[0]!);
      });
      void host.then((result) => reject(new Error(`host exited early: ${result.exitCode} ${result.stderr}`)));
    });
    const started = JSON.parse(line) as { ready: boolean; children: Array<{ name: string; pid: number }> };
    expect(started.ready).toBe(true);
    const judgePid = started.children.find((child) => child.name === "judge")!.pid;
    const driverPid = harness.find((event) => event.who === "slime" && event.event === "start")!.pid;
    const rayletPid = JSON.parse(readFileSync(path.join(harness.root, "ray-state", "state.json"), "utf8")).pid as number;
    for (const pid of [judgePid, driverPid, rayletPid]) expect(isProcessAlive(pid)).toBe(true);

    host.kill("SIGKILL");
    await host;
    await eventually(() => [judgePid, driverPid, rayletPid].every((pid) => !isProcessAlive(pid)), "children gone");
    // the watchdog SIGTERMed the head's leader, which stopped its raylet; nothing ran `ray stop`
    expect(harness.events().some((event) => event.who === "ray" && event.event === "signal-SIGTERM")).toBe(true);
    expect(harness.events().some((event) => event.who === "ray" && event.argv?.[0] === "stop")).toBe(false);
  });
});
