// A child that was ready and then stays down (kill -STOP: alive, but its probe gets no answer) longer than its
// hungAfterMs is stopped (SIGTERM, SIGKILL after the grace) and restarted like a crash; within the limit it is only down.
import { afterEach, describe, expect, it } from "vitest";
import { isGroupAlive } from "../../launchers/supervisor/process-group.ts";
import { httpProbe } from "../../launchers/supervisor/readiness-probe.ts";
import { backoffPolicy } from "../../launchers/supervisor/restart-policy.ts";
import type { SupervisedChild } from "../../launchers/supervisor/supervised-child.ts";
import { freePort } from "../support/loopback.ts";
import { eventually } from "./harness.ts";
import { nodeChildDefinition, supervise } from "./node-child.ts";

const children: SupervisedChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop(0)));
});

async function httpChild(hungAfterMs: number) {
  const port = await freePort();
  const script = `require("node:http").createServer((request, response) => response.end("ok")).listen(${port}, "127.0.0.1");`;
  const states: string[] = [];
  const definition = nodeChildDefinition("engine", script, {
    probe: httpProbe(`http://127.0.0.1:${port}/health`, 300),
    recheckMs: 100,
    hungAfterMs,
    restart: backoffPolicy({ initialMs: 100, maxRestarts: 3 }),
  });
  const { child } = supervise(definition, states);
  children.push(child);
  child.start();
  expect(await child.waitReady()).toBe(true);
  return { child, states, port };
}

describe("a hung child", () => {
  it("is stopped and restarted once it has been down longer than hungAfterMs", async () => {
    const { child, states } = await httpChild(1000);
    const firstPid = child.status().pid!;
    process.kill(firstPid, "SIGSTOP");
    await eventually(() => child.status().state === "down", "down");
    const restarted = await eventually(() => child.status().restarts === 1 && child.status().state === "ready" && child.status(), "restarted and ready");
    expect(restarted.pid).not.toBe(firstPid);
    expect(isGroupAlive(firstPid)).toBe(false);
    expect(restarted.lastResult).toMatchObject({ ok: false, killedByUs: false, signal: "SIGKILL", hung: { detail: expect.stringMatching(/no answer in 300 ms/) } });
    expect(restarted.lastResult!.summary).toMatch(/^engine was down for [12]s \(GET http:\/\/127\.0\.0\.1:\d+\/health → no answer in 300 ms\), so it was stopped after/);
    expect(states.some((state) => /^down: restarting in 0\.1s: engine was down for/.test(state))).toBe(true);
  });

  it("is only down while it has been down for less than hungAfterMs, and ready again when it answers", async () => {
    const { child } = await httpChild(60_000);
    const pid = child.status().pid!;
    process.kill(pid, "SIGSTOP");
    await eventually(() => child.status().state === "down", "down");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(child.status()).toMatchObject({ state: "down", pid, restarts: 0 });
    process.kill(pid, "SIGCONT");
    await eventually(() => child.status().state === "ready", "ready again");
    expect(child.status()).toMatchObject({ pid, restarts: 0 });
  });
});
