// Multi-node: the head's Ray readiness waits until the planned nodes joined (parsed from `ray status`), and
// `join` runs the planned worker command pointed at the head; plus the small pure helpers of the supervisor.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import type { LaunchPlan } from "../../contracts/plan.ts";
import { recipeSchema, recipeSettingsOf } from "../../contracts/recipe.ts";
import { workerProcess } from "../../cli/commands/join.ts";
import { defineChildren, resumeFromCheckpoint } from "../../launchers/supervisor/plan-children.ts";
import { lastMeaningfulLine } from "../../launchers/supervisor/child-result.ts";
import { countActiveNodes } from "../../launchers/supervisor/ray-control.ts";
import { backoffPolicy, restartDelay } from "../../launchers/supervisor/restart-policy.ts";
import { redactArgv } from "../../launchers/supervisor/child-log.ts";
import { Supervisor } from "../../launchers/supervisor/supervisor.ts";
import { eventually, FIXTURE_BIN, freePort, Harness, slimeProcesses, slimeRecipe } from "./harness.ts";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";

const supervisors: Supervisor[] = [];
afterAll(async () => {
  for (const supervisor of supervisors) await supervisor.stop({ force: true });
});

describe("multi-node", () => {
  it("the Ray head is ready only once every planned node has joined", async () => {
    const harness = new Harness();
    mkdirSync(harness.runDir, { recursive: true });
    const recipe = slimeRecipe({ rayPort: await freePort(), dashboardPort: await freePort(), judgePort: await freePort(), proxyPort: await freePort(), adminPort: await freePort(), runDir: harness.runDir, nodes: 2 });
    const plan: LaunchPlan = { method: "binary", engine: "slime", placement: null, processes: slimeProcesses(recipe, harness.root).filter((spec) => spec.name === "ray-head"), notes: [] };
    const supervisor = new Supervisor({ runDir: harness.runDir, baseEnvironment: harness.environment, stopGraceMs: 1000 });
    supervisors.push(supervisor);
    await supervisor.start(defineChildren(plan, recipe, { bridgeHello: () => null, baseEnvironment: harness.environment, recheckMs: 100 }));
    const waiting = await eventually(() => /1\/2 nodes joined/.test(supervisor.status("ray-head")!.detail) && supervisor.status("ray-head")!, "waiting for nodes");
    expect(waiting.state).toBe("starting");
    expect(waiting.detail).toContain("openclaw-rl join --head 127.0.0.1");
    const worker = await workerProcess(recipeSchema.parse({ ...recipeSettingsOf(recipe), engine: { ...recipe.engine, slime: { ...recipe.engine.slime, root: harness.root } } }), { head: "127.0.0.1", node: "1" });
    const join = await execa(worker.argv[0]!, worker.argv.slice(1).filter((arg) => arg !== "--block"), { env: { ...harness.environment, ...worker.env }, extendEnv: false, reject: false });
    expect(join.exitCode).toBe(0);
    expect(await supervisor.waitAllReady(HANG_GUARD_MS)).toBe(true);
    expect(supervisor.status("ray-head")!.detail).toMatch(/2\/2 nodes joined/);
    const joined = harness.find((event) => event.who === "raylet" && event.event === "node-joined")!;
    expect(joined).toMatchObject({ address: `127.0.0.1:${recipe.cluster.ray_port}` });
    await supervisor.stop();
  });

  it("join points the planned worker command at the given head", async () => {
    const recipe = recipeSchema.parse({ cluster: { nodes: 2, gpus_per_node: 8, actor_gpus: 8, rollout_gpus: 4, prm_gpus: 4, head_address: "10.0.0.1" }, engine: { kind: "slime" } });
    const worker = await workerProcess(recipe, { head: "10.0.0.9", node: "1" });
    expect(worker.argv).toEqual(expect.arrayContaining(["start", "--address", "10.0.0.9:6379", "--num-gpus"]));
    await expect(workerProcess(recipe, { head: "10.0.0.9", node: "2" })).rejects.toThrow(/--node must be 1..1/);
    const cli = await execa(process.execPath, [path.resolve(FIXTURE_BIN, "../../../bin/openclaw-rl.mjs"), "join", "--recipe", "configs/rehearsal.yaml", "--head", "x"], { reject: false, cwd: path.resolve(FIXTURE_BIN, "../../..") });
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/join is for multi-node slime recipes/);
  });
});

describe("supervisor helpers", () => {
  it("parses the Active section of `ray status`", () => {
    expect(countActiveNodes("Node status\n-----\nActive:\n 1 node_abc\n 1 node_def\nPending:\n (no pending nodes)")).toBe(2);
    expect(countActiveNodes("no cluster")).toBe(0);
  });

  it("resubmits a crashed job with a new submission id (no checkpoint in --save yet: the first start's --load stays)", () => {
    const recipe = recipeSchema.parse({});
    const spec = { name: "slime-job", role: "slime-job" as const, node: 0, cwd: "/", env: {}, argv: ["ray", "job", "submit", "--submission-id", "openclaw-rl-x", "--", "python3", "train_async.py", "--save", "/run/ckpt", "--load", "/old"] };
    const first = resumeFromCheckpoint(spec, recipe, 1);
    expect(first.argv).toEqual(["ray", "job", "submit", "--submission-id", "openclaw-rl-x-r1", "--", "python3", "train_async.py", "--save", "/run/ckpt", "--load", "/old"]);
    expect(resumeFromCheckpoint(first, recipe, 2).argv[4]).toBe("openclaw-rl-x-r2");
  });

  it("backs off exponentially and gives up after maxRestarts", () => {
    const policy = backoffPolicy({ initialMs: 100, factor: 2, maxMs: 350, maxRestarts: 3 });
    expect([1, 2, 3, 4].map((attempt) => restartDelay(policy, attempt))).toEqual([100, 200, 350, null]);
  });

  it("hides secret flag values in logged argv, not look-alikes", () => {
    expect(redactArgv(["x", "--wandb-key", "abc", "--api-key=s3", "--tokenizer", "builtin:qwen3", "--token-delay-ms", "2"])).toEqual(["x", "--wandb-key", "***", "--api-key=***", "--tokenizer", "builtin:qwen3", "--token-delay-ms", "2"]);
  });

  it("picks the exception line as the reason of a crash", () => {
    expect(lastMeaningfulLine(["Traceback (most recent call last):", '  File "x.py", line 1', "RuntimeError: boom", "Job 'x' failed"])).toBe("RuntimeError: boom");
  });
});
