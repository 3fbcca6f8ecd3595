// The stand-in policy restarted within a run (kill -9, as the supervisor then restarts it from the same argv) serves
// the weight version and the learned weights it had, so the tracker's version still matches and turns are not
// stale; a new run (another run id) starts from the base weights at "default".
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import type { PlanContext } from "../../../contracts/plan.ts";
import { recipeSchema } from "../../../contracts/recipe.ts";
import { rehearsalProcesses, standinWeightStatePath } from "../../../launchers/rehearsal-plan.ts";
import { freePort } from "../../support/loopback.ts";
import { untilListening } from "../stand-in-start.ts";

const root = path.resolve(import.meta.dirname, "..", "..", "..");
const running: ResultPromise[] = [];

afterEach(async () => {
  for (const child of running.splice(0)) {
    child.kill("SIGKILL");
    await child.catch(() => undefined);
  }
});

/** Starts the planned policy stand-in for `runId`; resolves with its banner once it listens. */
async function startPolicy(runDir: string, runId: string, port: number): Promise<{ child: ResultPromise; banner: string }> {
  const recipe = recipeSchema.parse({ engine: { kind: "rehearsal", rehearsal: { policy_port: port, judge_port: await freePort() } }, model: { path: "builtin:qwen3" } });
  const context: PlanContext = { packageRoot: root, runDir, bridgeUrl: "http://127.0.0.1:1", bridgeToken: "t", environment: {}, runId };
  const [policy] = rehearsalProcesses(recipe, context);
  const child = execa(policy!.argv[0]!, policy!.argv.slice(1), { cwd: policy!.cwd, env: policy!.env, reject: false });
  running.push(child);
  return { child, banner: await untilListening(child) };
}

async function kill9(child: ResultPromise): Promise<void> {
  child.kill("SIGKILL");
  await child;
  running.splice(running.indexOf(child), 1);
}

const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((response) => response.json());
const state = async (port: number) => (await (await fetch(`http://127.0.0.1:${port}/standin/state`)).json()) as { weight_version: string; responder: { logits: number[] } };

describe("stand-in policy weight state across restarts", () => {
  it("a kill -9 and restart within the run serves the same version and learned weights", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-standin-state-"));
    const port = await freePort();
    const first = await startPolicy(runDir, "20260101-000000", port);
    expect((await state(port)).weight_version).toBe("default");
    // the stand-in trainer's weight update: a policy file with learned logits (the "ai" style unlikely), version 8
    const policyFile = path.join(runDir, "policy-v8.json");
    writeFileSync(policyFile, JSON.stringify({ format: "openclaw-rl-standin-policy/1", styles: ["plain", "bulleted", "ai"], logits: [0.4, 0.1, -3] }));
    expect(await post(`http://127.0.0.1:${port}/update_weights_from_disk`, { model_path: policyFile, weight_version: "8" })).toMatchObject({ success: true });
    expect(path.dirname(standinWeightStatePath(runDir))).toBe(path.join(runDir, "standin-policy"));

    await kill9(first.child);
    const restarted = await startPolicy(runDir, "20260101-000000", port);
    expect(restarted.banner).toContain("restarted within run 20260101-000000: serving weight version 8 and its weights again");
    expect(await (await fetch(`http://127.0.0.1:${port}/get_weight_version`)).json()).toEqual({ weight_version: "8" });
    expect((await state(port)).responder.logits).toEqual([0.4, 0.1, -3]);

    // a version-only update (learning off) is kept too
    await post(`http://127.0.0.1:${port}/update_weight_version`, { new_version: "9" });
    await kill9(restarted.child);
    await startPolicy(runDir, "20260101-000000", port);
    expect(await state(port)).toMatchObject({ weight_version: "9", responder: { logits: [0.4, 0.1, -3] } });
  });

  it("a new start in the same run folder begins from the base weights at \"default\"", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-standin-state-"));
    const port = await freePort();
    const earlier = await startPolicy(runDir, "run-a", port);
    await post(`http://127.0.0.1:${port}/update_weight_version`, { new_version: "5" });
    await kill9(earlier.child);
    const next = await startPolicy(runDir, "run-b", port);
    expect(next.banner).not.toContain("restarted within run");
    expect(await state(port)).toMatchObject({ weight_version: "default", responder: { logits: [0, 0, 0] } });
  });
});
