// The trainer is ready on a bridge hello said after this incarnation of it started: a restarted trainer is not
// ready on the hello of the process it replaced (it used to be, in the millisecond it started).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LaunchPlan } from "../../contracts/plan.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import type { BridgeHello } from "../../contracts/bridge.ts";
import { defineChildren } from "../../launchers/supervisor/plan-children.ts";
import { Supervisor } from "../../launchers/supervisor/supervisor.ts";
import { eventually, Harness } from "./harness.ts";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";

let running: Supervisor[] = [];
afterEach(async () => {
  await Promise.all(running.map((supervisor) => supervisor.stop({ force: true })));
  running = [];
});

/** A stand-in trainer: says hello (a JSON file the hook reads) `helloAfterMs` after it started, then idles. */
function trainerPlan(root: string, helloFile: string, helloAfterMs: number): LaunchPlan {
  const script = `setTimeout(() => require("node:fs").writeFileSync(${JSON.stringify(helloFile)}, JSON.stringify({ routers: { policy: null, judge: null }, at: Date.now(), pid: process.pid })), ${helloAfterMs}); setInterval(() => {}, 1000);`;
  return { method: "binary", engine: "rehearsal", placement: null, notes: [], processes: [{ name: "rehearsal-trainer", role: "standin-trainer", argv: [process.execPath, "-e", script], env: {}, cwd: root, node: 0 }] };
}

describe("the trainer's readiness", () => {
  it("comes from a hello made after this incarnation started, not from the one before", async () => {
    const harness = new Harness();
    mkdirSync(harness.runDir, { recursive: true });
    const helloFile = path.join(harness.root, "trainer-hello.json");
    const hello = (): BridgeHello | null => (existsSync(helloFile) ? JSON.parse(readFileSync(helloFile, "utf8")) : null);
    const readyOn: Array<{ helloPid: number | undefined; at: number }> = [];
    const supervisor = new Supervisor({
      runDir: harness.runDir,
      baseEnvironment: harness.environment,
      stopGraceMs: 500,
      watchdog: false,
      onState: (_name, state) => state === "ready" && readyOn.push({ helloPid: hello()?.pid, at: Date.now() }),
    });
    running.push(supervisor);
    const recipe = recipeSchema.parse({ records: { dir: harness.runDir } });
    await supervisor.start(defineChildren(trainerPlan(harness.root, helloFile, 600), recipe, { bridgeHello: hello, baseEnvironment: harness.environment, recheckMs: 100, restartInitialMs: 100 }));
    expect(await supervisor.waitAllReady(HANG_GUARD_MS)).toBe(true);
    const first = supervisor.status("rehearsal-trainer")!;
    expect(readyOn).toEqual([{ helloPid: first.pid, at: expect.any(Number) }]);

    process.kill(first.pid!, "SIGKILL");
    const restarted = await eventually(() => {
      const status = supervisor.status("rehearsal-trainer")!;
      return status.restarts === 1 && status.state === "ready" && status;
    }, "the restarted trainer ready");
    expect(restarted.pid).not.toBe(first.pid);
    expect(readyOn).toHaveLength(2);
    expect(readyOn[1]!.helloPid).toBe(restarted.pid); // ready only once the new process said hello
  });

  it("says why it waits when the only hello is an earlier process's", async () => {
    const recipe = recipeSchema.parse({});
    const at = Date.now();
    const [trainer] = defineChildren(trainerPlan("/tmp", "/nonexistent", 0), recipe, { bridgeHello: () => ({ routers: { policy: null, judge: null }, pid: 1, at }), baseEnvironment: {} });
    expect(await trainer!.probe({ startedAt: at })).toEqual({ ready: true, detail: "said hello on the bridge" });
    expect(await trainer!.probe({ startedAt: at + 1 })).toEqual({ ready: false, detail: `waiting for its hello on the bridge (the last one, at ${new Date(at).toISOString()}, came from a process started before this one)` });
  });
});
