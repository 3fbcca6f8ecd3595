// The one set of checks: doctor fails whatever start refuses, from the same checks: the proxy on 0.0.0.0 without a key, a taken
// port, a records.dir that cannot be made, a start of the same records folder already running (whose own ports doctor
// then says are that run's), forced Qwen parsers on another family; a clean recipe passes both. Free ports only.
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { recipeSchema, type Recipe, type RecipeInput } from "../../contracts/recipe.ts";
import { reportLine } from "../../launchers/checks/check-result.ts";
import { runDoctor, type DoctorReport } from "../../launchers/checks/doctor.ts";
import { checkStart } from "../../launchers/checks/start-checks.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";
import { writeResolvedRecipe } from "../../launchers/resolved-recipe.ts";
import { freePort } from "../support/loopback.ts";

const PACKAGE_ROOT = path.resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(path.join(tmpdir(), "doctor-parity-"));
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function rehearsal(overrides: RecipeInput = {}): Promise<Recipe> {
  const [proxy, admin, policy, judge] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const base = { model: { path: "builtin:qwen3" }, engine: { kind: "rehearsal", rehearsal: { policy_port: policy, judge_port: judge } }, proxy: { port: proxy, admin_port: admin }, records: { dir: mkdtempSync(path.join(scratch, "run-")) } };
  return recipeSchema.parse(merge(base, overrides as Record<string, unknown>));
}

function merge(base: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const existing = out[key];
    out[key] = typeof value === "object" && value !== null && !Array.isArray(value) && typeof existing === "object" && existing !== null ? merge(existing as Record<string, unknown>, value as Record<string, unknown>) : value;
  }
  return out;
}

/** start's refusals (its strict plan, then its checks) and doctor's report for one recipe, in the same environment. */
async function both(recipe: Recipe, environment: Record<string, string | undefined> = {}): Promise<{ refusals: string[]; doctor: DoctorReport }> {
  const runDir = path.resolve(recipe.records.dir);
  const context = { packageRoot: PACKAGE_ROOT, runDir, environment, runId: "parity", bridgeUrl: "", bridgeToken: "" };
  const plan = await buildLaunchPlan(recipe, context, { strict: true });
  const verdict = await checkStart({ recipe, plan, runDir, environment, packageRoot: PACKAGE_ROOT });
  const doctor = await runDoctor(recipe, { cwd: scratch, packageRoot: PACKAGE_ROOT, environment });
  return { refusals: verdict.problems.map((problem) => problem.toLine()), doctor };
}

const failures = (report: DoctorReport) => report.results.filter((result) => result.status === "fail").map((result) => `${result.id}: ${reportLine(result)}`);

function hold(port: number, host = "127.0.0.1"): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer().listen(port, host, () => resolve(server));
    cleanups.push(() => new Promise((done) => server.close(done)));
  });
}

describe("doctor and start refuse the same things", () => {
  it("a clean rehearsal recipe: start refuses nothing and every required check passes", async () => {
    const { refusals, doctor } = await both(await rehearsal());
    expect(refusals).toEqual([]);
    expect(failures(doctor)).toEqual([]);
    expect(doctor.ok).toBe(true);
  });

  it("proxy.host 0.0.0.0 without a key: both refuse, naming proxy.host; with the key both pass", async () => {
    const recipe = await rehearsal({ proxy: { host: "0.0.0.0" } });
    const { refusals, doctor } = await both(recipe);
    expect(refusals).toEqual([expect.stringContaining("refusing to serve the proxy on 0.0.0.0 without an API key")]);
    expect(failures(doctor)).toEqual([expect.stringMatching(/^proxy: proxy\.host: refusing to serve the proxy on 0\.0\.0\.0 without an API key/)]);
    const keyed = await both(recipe, { OPENCLAW_RL_API_KEY: "k" });
    expect(keyed.refusals).toEqual([]);
    expect(keyed.doctor.ok).toBe(true);
  });

  it("a taken port and a records.dir through a file: both refuse each", async () => {
    const file = path.join(scratch, "a-file");
    writeFileSync(file, "");
    const recipe = await rehearsal({ records: { dir: path.join(file, "sub") } });
    await hold(recipe.proxy.admin_port);
    const { refusals, doctor } = await both(recipe);
    expect(refusals).toEqual([`proxy.admin_port: port ${recipe.proxy.admin_port} for the status API is already in use (hint: stop whatever listens there (see \`ss -ltnp 'sport = :${recipe.proxy.admin_port}'\`) or choose another port with --set proxy.admin_port=<port>)`, expect.stringMatching(/^records\.dir: cannot create/)]);
    expect(failures(doctor)).toEqual([
      `port: proxy.admin_port: port ${recipe.proxy.admin_port} for the status API is already in use`,
      expect.stringMatching(/^records: records\.dir: cannot create/),
    ]);
  });

  it("model.family llama3 with Qwen's parser forced: both refuse", async () => {
    const { refusals, doctor } = await both(await rehearsal({ model: { family: "llama3", tool_call_parser: "qwen25" } }));
    expect(refusals).toEqual([expect.stringContaining("forces Qwen's parser")]);
    expect(failures(doctor)).toEqual([expect.stringMatching(/^model-family: llama3 .*model\.tool_call_parser qwen25 forces Qwen's parser/)]);
  });

  it("a start of the same records folder running: both refuse; doctor says its ports are that run's, not taken", async () => {
    const recipe = await rehearsal();
    const runDir = recipe.records.dir;
    mkdirSync(runDir, { recursive: true });
    // a live pid in the orchestrator's place; killed at cleanup, which is no error (an unhandled rejection otherwise)
    const standIn: ResultPromise = execa("sleep", ["600"], { reject: false });
    cleanups.push(() => standIn.kill());
    writeFileSync(path.join(runDir, "pids.json"), JSON.stringify({ version: 1, orchestratorPid: standIn.pid, children: [] }));
    writeResolvedRecipe(runDir, recipe);
    await hold(recipe.proxy.port);
    await hold(recipe.proxy.admin_port);
    const { refusals, doctor } = await both(recipe);
    // its own ports are that run's, not taken: the one refusal is the running start
    expect(refusals).toEqual([expect.stringContaining(`records.dir: another openclaw-rl start (pid ${standIn.pid}) is running with this run folder`)]);
    expect(failures(doctor)).toEqual([expect.stringContaining(`run: records.dir: another openclaw-rl start (pid ${standIn.pid}) is running with this run folder`)]);
    const ports = doctor.results.filter((result) => result.id === "port");
    expect(ports.find((result) => result.what.includes("proxy.port"))).toMatchObject({ status: "pass", what: `${recipe.proxy.port} (proxy.port) is held by the running start (pid ${standIn.pid}) of this records folder` });
    expect(ports.find((result) => result.what.includes("engine.rehearsal.policy_port"))).toMatchObject({ status: "pass", what: expect.stringContaining("is free") });
  });
});
