// The launchers' Ray steps against real Ray (pip, pinned in .cache/venv-ray), on loopback, as `start` and `join`
// drive them: the planned `ray start --head --block` under the supervisor (ready once the planned nodes joined, read
// from `ray status`), `join`'s planned worker command, the planned `ray job submit` with its runtime environment and
// the job's status from the dashboard, `ray job stop`, and the supervisor's stop (the head's `ray start --block` stops
// its own processes on SIGTERM; never `ray stop`, which stops every Ray of the user by name). Ray's other ports and its
// temp dir are the test's own (appended to the planned argv), so nothing depends on a default port being free.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { BRIDGE_URL_ENV } from "../../contracts/bridge.ts";
import type { LaunchPlan, PlanContext, ProcessSpec } from "../../contracts/plan.ts";
import { recipeSchema, type Recipe } from "../../contracts/recipe.ts";
import { workerProcess } from "../../cli/commands/join.ts";
import { planPlacement } from "../../launchers/placement.ts";
import { rayHeadProcess } from "../../launchers/slime/ray-cluster.ts";
import { runtimeEnvVars, slimeJobProcess, submissionId } from "../../launchers/slime/slime-job.ts";
import { defineChildren, rayControlFor } from "../../launchers/supervisor/plan-children.ts";
import { isGroupAlive, isProcessAlive } from "../../launchers/supervisor/process-group.ts";
import { Supervisor } from "../../launchers/supervisor/supervisor.ts";
import { freePort, until } from "../support/loopback.ts";
import { RAY_PYTHON, requireVenv } from "./engine-venvs.ts";

const RAY = path.join(path.dirname(RAY_PYTHON), "ray");
// a short temp dir: Ray's socket paths live under it and must stay under the 107-byte limit
const root = mkdtempSync(path.join(tmpdir(), "ocr-ray-"));
const slimeRoot = path.join(root, "slime");
let supervisor: Supervisor | undefined;
/** Process groups this test started itself (the worker node, the bystander), each led by the recorded pid. */
const ownGroups: number[] = [];

afterAll(async () => {
  // the supervisor's stop ends the head; if the test failed before it, stop here (bounded), then our own groups
  await supervisor?.stop({ force: true }).catch(() => undefined);
  for (const pgid of ownGroups) if (isGroupAlive(pgid)) process.kill(-pgid, "SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

/** Starts a command in its own process group, recorded for afterAll. */
function ownGroup(file: string, args: string[], environment: Record<string, string | undefined>): ResultPromise<{ detached: true; reject: false; stdin: "ignore"; cleanup: false }> {
  const child = execa(file, args, { env: environment, extendEnv: false, detached: true, reject: false, stdin: "ignore", cleanup: false });
  ownGroups.push(child.pid!);
  return child;
}

/** Ray's own ports and dirs for one node: free ports, the test's temp dir, a small object store, one CPU. */
async function isolation(head: boolean): Promise<string[]> {
  const ports = async (...flags: string[]) => (await Promise.all(flags.map(async (flag) => [flag, String(await freePort())]))).flat();
  return [
    "--temp-dir", path.join(root, "ray"),
    ...(await ports(...(head ? ["--ray-client-server-port"] : []), "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port", "--node-manager-port", "--object-manager-port")),
    "--min-worker-port", "0", "--max-worker-port", "0",
    "--num-cpus", "1", "--object-store-memory", String(100 * 1024 * 1024),
  ];
}

/** Polls until the probe gives a value; unlike `until`, a probe that throws ends the wait with its error. */
async function waitFor<T>(what: string, probe: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The head's status once it waits for the second node; a head that failed ends the wait at once. */
async function headWaiting(running: Supervisor) {
  const status = running.status("ray-head");
  if (status?.state === "failed") throw new Error(`ray-head failed: ${status.detail}`);
  return status && /1\/2 nodes joined/.test(status.detail) ? status : null;
}

/** The end of a child's log, for a failure's message. */
function logTail(runDir: string, name: string): string {
  const logs = path.join(runDir, "logs");
  const files = existsSync(logs) ? readdirSync(logs).filter((file) => file.startsWith(name)) : [];
  return files.map((file) => readFileSync(path.join(logs, file), "utf8").slice(-3000)).join("\n");
}

/** The job's entrypoint: slime's train_async.py stands in as a script that prints what Ray handed it, then waits. */
function writeTrainScript(): void {
  writeFileSync(
    path.join(slimeRoot, "train_async.py"),
    [
      "import json, os, sys, time",
      `print('SEEN ' + json.dumps({'argv': sys.argv[1:], 'cwd': os.getcwd(), 'PYTHONPATH': os.environ.get('PYTHONPATH'), 'bridge': os.environ.get('${BRIDGE_URL_ENV}')}), flush=True)`,
      "time.sleep(float(os.environ.get('TRAIN_SECONDS', '600')))",
    ].join("\n"),
  );
}

describe("Ray itself (ray 2.53.0 from PyPI), as start and join drive it", () => {
  it("starts the head, joins a worker, submits and stops the job, and stops Ray", async () => {
    requireVenv(RAY_PYTHON);
    mkdirSync(slimeRoot, { recursive: true });
    writeTrainScript();
    const runDir = path.join(root, "run");
    mkdirSync(runDir, { recursive: true });
    const recipe: Recipe = recipeSchema.parse({
      method: "binary",
      cluster: { nodes: 2, gpus_per_node: 8, ray_port: await freePort(), dashboard_port: await freePort() },
      engine: { kind: "slime", slime: { ray: RAY, python: RAY_PYTHON, root: slimeRoot } },
      records: { dir: runDir },
    });
    const context: PlanContext = { runDir, packageRoot: path.join(import.meta.dirname, "..", ".."), bridgeUrl: "http://127.0.0.1:9/bridge", bridgeToken: "t", environment: {}, runId: "engines" };

    // start: the planned head and job, the head with the test's isolation flags
    const planned = rayHeadProcess(recipe, planPlacement(recipe), { shared: {}, secretKeys: [] });
    expect(planned.argv.slice(0, 4)).toEqual([RAY, "start", "--head", "--block"]);
    const head: ProcessSpec = { ...planned, argv: [...planned.argv, ...(await isolation(true))] };
    const job = slimeJobProcess(recipe, context, ["--rollout-batch-size", "16"]);
    const plan: LaunchPlan = { method: "binary", engine: "slime", placement: null, processes: [head, job], notes: [] };
    const environment = { PATH: process.env.PATH, HOME: process.env.HOME, TRAIN_SECONDS: "600" };
    const ray = rayControlFor(recipe, environment, plan.processes);
    let hello: { routers: { policy: null; judge: null }; pid: number; at: number } | null = null;
    supervisor = new Supervisor({ runDir, baseEnvironment: environment, stopGraceMs: 30_000, watchdog: false });
    const started = Date.now();
    void supervisor.start(defineChildren(plan, recipe, { bridgeHello: () => hello, baseEnvironment: environment, recheckMs: 500, timeouts: { rayHead: 240_000, slimeJob: 240_000 } }));

    // the head answers, but is not ready until the second planned node joins
    const waiting = await waitFor("the head waiting for node 1", () => headWaiting(supervisor!), 240_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(supervisor!.status("ray-head"))}\n${logTail(runDir, "ray-head")}`);
    });
    expect(waiting.state).toBe("starting");
    const headSeconds = (Date.now() - started) / 1000;

    // join: the planned worker command of node 1, in the foreground with --block as `join` runs it, in its own group
    const worker = await workerProcess(recipe, { head: "127.0.0.1", node: "1" });
    expect(worker.argv).toEqual(expect.arrayContaining([RAY, "start", "--block", "--address", `127.0.0.1:${recipe.cluster.ray_port}`]));
    const workerNode = ownGroup(worker.argv[0]!, [...worker.argv.slice(1), ...(await isolation(false)), "--node-ip-address", "127.0.0.1"], { ...environment, ...worker.env });
    await waitFor("2/2 nodes joined", async () => {
      if (workerNode.exitCode !== null) throw new Error(`the worker node's ray start exited ${workerNode.exitCode}`);
      return /2\/2 nodes joined/.test(supervisor!.status("ray-head")?.detail ?? "") ? true : null;
    }, 240_000);
    expect((await ray.status()).nodes).toBe(2);

    // the job: submitted once the head is ready, RUNNING on the dashboard, in the head's cwd with the runtime env
    const id = submissionId(context);
    await until(`job ${id} RUNNING`, async () => ((await ray.jobStatus(id)).status === "RUNNING" ? true : null), 180_000);
    const logs = await until("the job's first line", async () => {
      const result = await execa(RAY, ["job", "logs", id, "--address", ray.options.dashboardUrl], { env: environment, extendEnv: false, reject: false });
      const line = result.stdout.split("\n").find((text) => text.startsWith("SEEN "));
      return line ? (JSON.parse(line.slice(5)) as { argv: string[]; cwd: string; PYTHONPATH: string; bridge: string }) : null;
    }, 120_000);
    expect(logs.argv).toEqual(["--rollout-batch-size", "16"]);
    expect(logs.cwd).toBe(slimeRoot);
    expect(logs.PYTHONPATH).toBe(runtimeEnvVars(recipe, context).PYTHONPATH);
    expect(logs.PYTHONPATH.split(":")).toEqual([recipe.engine.slime.megatron_root, path.join(context.packageRoot, "native"), slimeRoot]);
    expect(logs.bridge).toBe(context.bridgeUrl);
    // the rollout function's hello on the bridge makes the job ready (no routers announced here)
    hello = { routers: { policy: null, judge: null }, pid: 1, at: Date.now() };
    expect(await supervisor.waitAllReady(60_000)).toBe(true);

    // a process that `ray stop` would stop by name (its arguments name Ray's log_monitor.py), and no part of this run
    const bystander = ownGroup("/usr/bin/python3", ["-c", "import time; time.sleep(900)", path.join(root, "not-ray", "log_monitor.py")], environment);
    await waitFor("the bystander running", async () => (isProcessAlive(bystander.pid!) ? true : null), 30_000);

    // stop: `ray job stop` (STOPPED on the dashboard), then SIGTERM to the head's `ray start --block`, which stops its
    // Ray processes; nothing of the head's group is left, the dashboard does not answer, and the bystander and the
    // worker node (another Ray on this machine, which `ray stop` would have stopped too) still run
    const headPid = supervisor.status("ray-head")!.pid!;
    const report = await supervisor.stop();
    supervisor = undefined;
    // each graceful stop ran without an error or a timeout (the job's throws unless `ray job stop` left it ended)
    expect(report.steps.filter((step) => step.includes("graceful stop"))).toEqual(["slime-job: graceful stop", "ray-head: graceful stop"]);
    expect(isProcessAlive(bystander.pid!)).toBe(true);
    expect(workerNode.exitCode).toBeNull();
    expect(isGroupAlive(headPid)).toBe(false);
    expect(await ray.dashboardAnswers()).toBe(false);
    const after = await ray.status(20_000);
    expect(after.running).toBe(false);

    // the worker node: SIGTERM to its own `ray start --block`, as Ctrl-C on `join` does; then nothing of Ray is left
    process.kill(workerNode.pid!, "SIGTERM");
    await waitFor("the worker node's group gone", async () => (isGroupAlive(workerNode.pid!) ? null : true), 120_000);
    const left = await execa("ps", ["-eo", "args"], { reject: false });
    expect(left.stdout.split("\n").filter((line) => line.includes(path.join(root, "ray")))).toEqual([]);
    expect(isProcessAlive(bystander.pid!)).toBe(true);
    console.log(`real Ray: head answered after ${headSeconds.toFixed(1)} s, 2 nodes joined, job ${id} ran in ${logs.cwd}, stopped (${JSON.stringify(report).slice(0, 200)})`);
  }, 600_000);
});
