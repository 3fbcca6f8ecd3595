// start's checks refuse to start over a running Ray or a taken port (exit 2 material: typed errors with the fix),
// report an earlier run's leftovers by pid, and never kill anything.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import type { LaunchPlan } from "../../contracts/plan.ts";
import { recipeSchema, type Recipe } from "../../contracts/recipe.ts";
import { checkStart } from "../../launchers/checks/start-checks.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";
import { isProcessAlive } from "../../launchers/supervisor/process-group.ts";
import { buildInstallation } from "../support/engine-install.ts";
import { FIXTURE_BIN, freePort, Harness, slimeProcesses, slimeRecipe } from "../supervisor/harness.ts";

const PACKAGE_ROOT = path.resolve(FIXTURE_BIN, "../../..");

/** start's strict plan for a rehearsal recipe (its stand-ins are the processes). */
function rehearsalPlan(recipe: Recipe, runDir: string): Promise<LaunchPlan> {
  return buildLaunchPlan(recipe, { packageRoot: PACKAGE_ROOT, runDir, environment: {}, runId: "checks", bridgeUrl: "", bridgeToken: "" }, { strict: true });
}

/** The recipe pointed at a fake fork installation: start's checks probe the installed slime and SGLang for engine slime. */
async function withForkInstalled(recipe: Recipe, folder: string): Promise<Recipe> {
  const installation = await buildInstallation(folder, "fork", "jan");
  return { ...recipe, engine: { ...recipe.engine, slime: { ...recipe.engine.slime, root: installation.root, megatron_root: installation.megatronRoot, python: installation.python } } };
}

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function hold(port: number): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer().listen(port, "127.0.0.1", () => resolve(server));
    cleanups.push(() => new Promise((done) => server.close(done)));
  });
}

describe("start's checks", () => {
  it("refuses when a Ray cluster is already running, and leaves it running", async () => {
    const harness = new Harness();
    mkdirSync(harness.runDir, { recursive: true });
    const recipe = await withForkInstalled(slimeRecipe({ rayPort: await freePort(), dashboardPort: await freePort(), judgePort: await freePort(), proxyPort: await freePort(), adminPort: await freePort(), runDir: harness.runDir }), path.join(harness.root, "install"));
    const env = { ...harness.environment } as Record<string, string>;
    await execa("ray", ["start", "--head", "--port", String(await freePort()), "--dashboard-port", String(await freePort())], { env, extendEnv: false });
    cleanups.push(() => execa("ray", ["stop", "--force"], { env, extendEnv: false, reject: false }));
    const plan: LaunchPlan = { method: "binary", engine: "slime", placement: null, processes: slimeProcesses(recipe, harness.root), notes: [] };
    const report = await checkStart({ recipe, plan, runDir: harness.runDir, environment: harness.environment, packageRoot: PACKAGE_ROOT });
    expect(report.problems.map((problem) => problem.code)).toEqual(["RAY_RUNNING"]);
    expect(report.problems[0]!.toLine()).toMatch(/a Ray cluster is already running .*hint: .*`ray stop` if it is yours/);
    const status = await execa("ray", ["status"], { env, extendEnv: false, reject: false });
    expect(status.exitCode).toBe(0);
    expect(harness.events().filter((event) => event.who === "ray").map((event) => event.argv![0])).toEqual(["start", "status", "status"]);
  });

  it("names each taken port with its recipe key and the fix", async () => {
    const harness = new Harness();
    mkdirSync(harness.runDir, { recursive: true });
    const [proxyPort, adminPort, policyPort, dashboardPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    await hold(proxyPort);
    await hold(policyPort);
    await hold(dashboardPort);
    const rehearsal = recipeSchema.parse({ engine: { kind: "rehearsal", rehearsal: { policy_port: policyPort, judge_port: await freePort() } }, proxy: { port: proxyPort, admin_port: adminPort }, records: { dir: harness.runDir } });
    const plan = await rehearsalPlan(rehearsal, harness.runDir);
    const report = await checkStart({ recipe: rehearsal, plan, runDir: harness.runDir, environment: harness.environment, packageRoot: PACKAGE_ROOT });
    expect(report.problems.map((problem) => [problem.code, problem.path])).toEqual([
      ["PORT_IN_USE", "proxy.port"],
      ["PORT_IN_USE", "engine.rehearsal.policy_port"],
    ]);
    expect(report.problems[0]!.hint).toContain(`--set proxy.port=<port>`);

    const slime = await withForkInstalled(slimeRecipe({ rayPort: await freePort(), dashboardPort, judgePort: await freePort(), proxyPort: await freePort(), adminPort: await freePort(), runDir: harness.runDir }), path.join(harness.root, "install"));
    const slimeReport = await checkStart({ recipe: slime, plan: { ...plan, engine: "slime", processes: [] }, runDir: harness.runDir, environment: harness.environment, packageRoot: PACKAGE_ROOT });
    expect(slimeReport.problems.map((problem) => [problem.code, problem.path])).toEqual([["RAY_RUNNING", "cluster.dashboard_port"]]);
  });

  it("reports an earlier run's live children by pid without touching them", async () => {
    const harness = new Harness();
    mkdirSync(harness.runDir, { recursive: true });
    const sleeper = execa("sleep", ["30"], { reject: false });
    cleanups.push(() => sleeper.kill("SIGKILL"));
    writeFileSync(
      path.join(harness.runDir, "pids.json"),
      JSON.stringify({ version: 1, orchestratorPid: 999_999_99, children: [{ name: "judge", pid: sleeper.pid, command: "sleep", startedAt: 1 }, { name: "gone", pid: 999_999_98, command: "x", startedAt: 1 }] }),
    );
    const recipe = recipeSchema.parse({ engine: { kind: "external", policy_url: "http://127.0.0.1:9", judge_url: "http://127.0.0.1:9" }, judge: { launch: "external", url: "http://127.0.0.1:9" }, proxy: { port: await freePort(), admin_port: await freePort() } });
    const plan: LaunchPlan = { method: "binary", engine: "external", placement: null, processes: [], notes: [] };
    const report = await checkStart({ recipe, plan, runDir: harness.runDir, environment: harness.environment, packageRoot: PACKAGE_ROOT });
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual([expect.stringMatching(new RegExp(`^pid ${sleeper.pid} \\(judge, started by an earlier openclaw-rl run\\) is still alive: sleep 30 \\(if it is not wanted, stop it with kill -TERM -${sleeper.pid}\\)$`))]);
    expect(isProcessAlive(sleeper.pid!)).toBe(true);
  });

  it("refuses while another start runs with the run folder, without calling that live run's children leftovers", async () => {
    const harness = new Harness();
    mkdirSync(harness.runDir, { recursive: true });
    const orchestrator = execa("sleep", ["30"], { reject: false });
    const child = execa("sleep", ["31"], { reject: false });
    cleanups.push(() => orchestrator.kill("SIGKILL"), () => child.kill("SIGKILL"));
    writeFileSync(path.join(harness.runDir, "pids.json"), JSON.stringify({ version: 1, orchestratorPid: orchestrator.pid, children: [{ name: "rehearsal-policy", pid: child.pid, command: "sleep", startedAt: 1 }] }));
    const recipe = recipeSchema.parse({ engine: { kind: "external", policy_url: "http://127.0.0.1:9", judge_url: "http://127.0.0.1:9" }, judge: { launch: "external", url: "http://127.0.0.1:9" }, proxy: { port: await freePort(), admin_port: await freePort() } });
    const plan: LaunchPlan = { method: "binary", engine: "external", placement: null, processes: [], notes: [] };
    const report = await checkStart({ recipe, plan, runDir: harness.runDir, environment: harness.environment, packageRoot: PACKAGE_ROOT });
    expect(report.problems.map((problem) => problem.toLine())).toEqual([expect.stringMatching(new RegExp(`^records\\.dir: another openclaw-rl start \\(pid ${orchestrator.pid}\\) is running with this run folder`))]);
    expect(report.warnings).toEqual([]);
    expect(isProcessAlive(child.pid!)).toBe(true);
  });

  it("refuses a proxy on a non-loopback address without an API key (the proxy's own bind rule); a key lets it through", async () => {
    const harness = new Harness();
    const recipe = recipeSchema.parse({ engine: { kind: "rehearsal", rehearsal: { policy_port: await freePort(), judge_port: await freePort() } }, proxy: { host: "0.0.0.0", port: await freePort(), admin_port: await freePort(), api_key_env: "CHECKS_TEST_KEY" }, records: { dir: harness.runDir } });
    const plan = await rehearsalPlan(recipe, harness.runDir);
    const refused = await checkStart({ recipe, plan, runDir: harness.runDir, environment: { ...harness.environment, CHECKS_TEST_KEY: "" }, packageRoot: PACKAGE_ROOT });
    expect(refused.problems.map((problem) => problem.toLine())).toEqual([
      'proxy.host: refusing to serve the proxy on 0.0.0.0 without an API key (hint: set the CHECKS_TEST_KEY environment variable (clients send it as "Authorization: Bearer <key>"), or bind 127.0.0.1)',
    ]);
    const allowed = await checkStart({ recipe, plan, runDir: harness.runDir, environment: { ...harness.environment, CHECKS_TEST_KEY: "k" }, packageRoot: PACKAGE_ROOT });
    expect(allowed.problems).toEqual([]);
    expect(existsSync(harness.runDir)).toBe(false);
  });

  it("refuses a records.dir that cannot be created, naming records.dir and the OS reason, and creates nothing", async () => {
    const harness = new Harness();
    const file = path.join(harness.root, "a-file");
    writeFileSync(file, "");
    const runDir = path.join(file, "sub");
    const recipe = recipeSchema.parse({ engine: { kind: "rehearsal", rehearsal: { policy_port: await freePort(), judge_port: await freePort() } }, proxy: { port: await freePort(), admin_port: await freePort() }, records: { dir: runDir } });
    const plan = await rehearsalPlan(recipe, runDir);
    const report = await checkStart({ recipe, plan, runDir, environment: harness.environment, packageRoot: PACKAGE_ROOT });
    expect(report.problems.map((problem) => [problem.code, problem.path])).toEqual([["PATH_UNWRITABLE", "records.dir"]]);
    expect(report.problems[0]!.toLine()).toBe(`records.dir: cannot create ${runDir}: ${file} is a file, not a folder (ENOTDIR) (hint: point records.dir at a folder you can create and write (--set records.dir=<folder>))`);

    const fine = await checkStart({ recipe, plan, runDir: path.join(harness.root, "new", "run"), environment: harness.environment, packageRoot: PACKAGE_ROOT });
    expect(fine.problems).toEqual([]);
    expect(existsSync(path.join(harness.root, "new"))).toBe(false);
  });
});
