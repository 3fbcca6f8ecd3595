// A child's end is its own exit, even when a subprocess it started keeps its stdout open: the rest of its process
// group is stopped and the end goes through the restart path, instead of waiting for the pipes to close.
import { afterEach, describe, expect, it } from "vitest";
import { isGroupAlive } from "../../launchers/supervisor/process-group.ts";
import { backoffPolicy } from "../../launchers/supervisor/restart-policy.ts";
import type { SupervisedChild } from "../../launchers/supervisor/supervised-child.ts";
import { eventually } from "./harness.ts";
import { nodeChildDefinition, supervise } from "./node-child.ts";

const children: SupervisedChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop(0)));
});

/** Starts `sleep 600` sharing its stdout and stderr, then dies with code 3 (once, or every time). */
const leavesAHelperBehind = (exitAfterMs: number) => `
  const { spawn } = require("node:child_process");
  const helper = spawn("sleep", ["600"], { stdio: ["ignore", "inherit", "inherit"] });
  console.log("helper pid " + helper.pid);
  setTimeout(() => { console.error("RuntimeError: engine died"); process.exit(3); }, ${exitAfterMs});
`;

describe("a child whose subprocess outlives it", () => {
  it("is seen to end when it exits; the rest of its group is stopped", async () => {
    const { child } = supervise(nodeChildDefinition("engine", leavesAHelperBehind(300)));
    children.push(child);
    const startedAt = Date.now();
    child.start();
    await eventually(() => child.status().pid, "a pid");
    const pid = child.status().pid!;
    // the helper it leaves behind sleeps 600 s: seen within a minute is seen at the child's own exit
    const status = await eventually(() => child.status().state === "failed" && child.status(), "the end to be seen");
    expect(Date.now() - startedAt).toBeLessThan(60_000);
    expect(status.lastResult).toMatchObject({ exitCode: 3, killedByUs: false, ok: false });
    expect(status.detail).toMatch(/engine exited with code 3 .*RuntimeError: engine died \(no restart policy\)/);
    expect(isGroupAlive(pid)).toBe(false);
  });

  it("is restarted through the normal backoff path", async () => {
    const definition = nodeChildDefinition("engine", leavesAHelperBehind(400), { restart: backoffPolicy({ initialMs: 100, maxRestarts: 5 }) });
    const { child } = supervise(definition);
    children.push(child);
    child.start();
    await eventually(() => child.status().pid, "a pid");
    const firstPid = child.status().pid!;
    await eventually(() => child.status().restarts >= 1 && child.status().state === "ready", "a restart");
    expect(child.status().pid).not.toBe(firstPid);
    expect(child.status().lastResult).toMatchObject({ exitCode: 3, ok: false });
    expect(isGroupAlive(firstPid)).toBe(false);
  });
});
