// `openclaw-rl eval --run DIR` when the run has no base yet: the base weights are evaluated first (a stand-in policy
// of their own, as `--checkpoint base` serves them) and the served version is paired with them; a later run reuses
// that base only on the same base weights and evaluation plan, and says so; other runs' rows are left out.
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadRecipe } from "../../cli/recipe-file.ts";
import { versionMetricsSchema, type VersionMetrics } from "../../contracts/evaluation.ts";
import { writeResolvedRecipe } from "../../launchers/resolved-recipe.ts";
import { readEvaluations } from "../../orchestrator/evaluation/evaluation-history.ts";
import { SHIPPED_PERSONAS } from "../../orchestrator/evaluation/held-out-set.ts";
import { policyScript, startEvaluationFixture, type EvaluationFixture } from "../evaluation/evaluation-fixture.ts";
import { startEnvironmentServer } from "../../environments/environment-server.ts";
import { REPO_ROOT, runCliInProcess } from "./cli-process.ts";

describe("openclaw-rl eval: the base is the base weights", () => {
  let fixture: EvaluationFixture;
  let statusServer: Server;
  let runDir: string;
  /** What the fake running start answers on /status: its run id and the version it serves. */
  const start = { run: "run-b", version: "15" };
  /** The rows `eval` handed to the running start (POST /evaluation/recorded), in order. */
  const handedIn: VersionMetrics[] = [];

  beforeAll(async () => {
    fixture = await startEvaluationFixture(policyScript);
    runDir = await mkdtemp(path.join(tmpdir(), "eval-base-cli-"));
    statusServer = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        response.writeHead(200, { "content-type": "application/json" });
        if (request.method === "POST") {
          handedIn.push(versionMetricsSchema.parse(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
          return void response.end(JSON.stringify({ announced: true }));
        }
        response.end(JSON.stringify({ run_id: start.run, weight_version: start.version, endpoints: { proxy: `${fixture.harness.url}/v1` } }));
      });
    });
    await new Promise<void>((resolve) => statusServer.listen(0, "127.0.0.1", resolve));
    const { port } = statusServer.address() as { port: number };
    writeFileSync(path.join(runDir, "admin.json"), JSON.stringify({ url: `http://127.0.0.1:${port}` }));
    writeFileSync(path.join(runDir, "admin-token"), "test-token\n");
    const personas = path.join(runDir, "two-openers.jsonl");
    writeFileSync(personas, readFileSync(SHIPPED_PERSONAS, "utf8").trim().split("\n").slice(0, 2).join("\n") + "\n");
    const judgePort = new URL(fixture.judge.url).port;
    const { recipe } = loadRecipe({ set: [`records.dir=${runDir}`, `engine.rehearsal.judge_port=${judgePort}`, `evaluation.personas=${personas}`, "evaluation.samples=1"] });
    writeResolvedRecipe(runDir, recipe);
  }, 60_000);
  afterAll(async () => {
    await fixture?.close();
    await new Promise((resolve) => statusServer?.close(resolve));
    await rm(runDir, { recursive: true, force: true });
  });

  it("right after training, evaluates the base weights (v0) first and pairs the served version with them", async () => {
    const result = await runCliInProcess(["eval", "--run", runDir]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("· no base evaluated in run run-b yet: evaluating the base weights (v0) first, then v15 against them\n");
    expect(result.stderr).toMatch(/· serving v0 from the stand-in's base weights on http:\/\/127\.0\.0\.1:\d+/);
    const rows = readEvaluations(runDir).map(({ version, baseVersion, run, baseRun, served }) => ({ version, baseVersion, run, baseRun, served }));
    expect(rows).toEqual([
      { version: "0", baseVersion: null, run: "run-b", baseRun: null, served: "checkpoint" },
      { version: "15", baseVersion: "0", run: "run-b", baseRun: "run-b", served: "live" },
    ]);
    expect(readEvaluations(runDir)[1]!.winRate).not.toBeNull();
    // the table: the base row is v0, the served row is paired with it, each with its run; the start was told of both
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(/^version\s.*\srun$/);
    expect(lines[1]).toMatch(/^0 \(base\) · checkpoint base weights\s+2\/2\s.*\s–\s+–\s+\S+\s+run-b$/);
    expect(lines[2]).toMatch(/^15\s+2\/2\s+\S+\s+\[.*\]\s+\d+\.\d%\s+\[.*\]\s+\S+\s+run-b$/);
    expect(result.stdout).not.toMatch(/^15 \(base\)/m);
    expect(result.stdout).toMatch(/^sessions until the first reply satisfies 3 sessions in a row: /m); // the paper's measure, beside the score
    expect(handedIn.map((metrics) => [metrics.version, metrics.baseVersion])).toEqual([["0", null], ["15", "0"]]);
  }, 240_000);

  it("in a later run on the same base weights and plan, reuses that base, says so, and leaves the other run's rows out", async () => {
    Object.assign(start, { run: "run-c", version: "3" });
    handedIn.length = 0;
    const result = await runCliInProcess(["eval", "--run", runDir]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("· the base is run run-b's evaluation of v0, reused: the same base weights (stand-in builtin:qwen3 seed 0) and evaluation plan\n");
    expect(result.stderr).not.toContain("serving v0");
    const lines = result.stdout.split("\n");
    expect(lines[1]).toMatch(/^0 \(base\) · checkpoint base weights\s.*\srun-b$/);
    expect(lines[2]).toMatch(/^3\s.*\srun-c$/);
    expect(result.stdout).not.toMatch(/^15\s/m);
    expect(result.stdout).toContain("base: run run-b's evaluation of the base weights, reused (the same base weights and evaluation plan)\n");
    expect(result.stdout).toContain("1 evaluation of other runs in this folder not shown (this run: run-c; all in evaluations.jsonl)\n");
    expect(readEvaluations(runDir).at(-1)).toMatchObject({ version: "3", run: "run-c", baseRun: "run-b", baseVersion: "0" });
    // the running start is handed the reused base first, so its screens show it as the base
    expect(handedIn.map((metrics) => [metrics.version, metrics.run])).toEqual([["0", "run-b"], ["3", "run-c"]]);
  }, 240_000);

  it("does not reuse a base evaluated on another plan: a run with other evaluation settings evaluates its own", async () => {
    Object.assign(start, { run: "run-d", version: "4" });
    const result = await runCliInProcess(["eval", "--run", runDir, "--set", "evaluation.votes=2"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("· no base evaluated in run run-d yet: evaluating the base weights (v0) first, then v4 against them\n");
    const own = readEvaluations(runDir).filter((metrics) => metrics.run === "run-d");
    expect(own.map(({ version, baseVersion, baseRun }) => ({ version, baseVersion, baseRun }))).toEqual([
      { version: "0", baseVersion: null, baseRun: null },
      { version: "4", baseVersion: "0", baseRun: "run-d" },
    ]);
  }, 240_000);

  it("in a run on a built-in environment, evaluates the tasks it ships held out, for the base weights and the served version alike", async () => {
    Object.assign(start, { run: "run-e", version: "6" });
    const environment = await startEnvironmentServer({ kind: "toolcall", port: 0, slots: 4 });
    try {
      const port = new URL(environment.url).port;
      const result = await runCliInProcess(["eval", "--run", runDir, "--set", "episodes.environment=toolcall", "--set", `episodes.environment_port=${port}`, "--set", "evaluation.episode_samples=1"]);
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toContain(`· held-out tasks: 6 from the tasks the toolcall environment ships held out (${path.join(REPO_ROOT, "environments", "toolcall", "held-out.jsonl")}), 1 episodes each in the run's environment, beside the chat personas; others: \`--set evaluation.tasks=<tasks.jsonl>\``);
      const own = readEvaluations(runDir).filter((metrics) => metrics.run === "run-e");
      expect(own.map((metrics) => [metrics.version, metrics.baseVersion, metrics.episodes?.tasks, metrics.episodes?.episodes])).toEqual([["0", null, 6, 6], ["6", "0", 6, 6]]);
      expect(result.stdout.split("\n")[0]).toMatch(/^version\s.*\sepisode outcome\s+95% CI\s+pass@1\s+95% CI\s+run$/);
    } finally {
      await environment.close();
    }
  }, 240_000);

  it("in a run on another environment with no held-out tasks, says that only chat is evaluated and how to choose tasks", async () => {
    Object.assign(start, { run: "run-e", version: "7" });
    const tasks = path.join(REPO_ROOT, "environments", "terminal", "tasks.jsonl");
    const result = await runCliInProcess(["eval", "--run", runDir, "--set", "episodes.env_url=http://127.0.0.1:9", "--set", `episodes.tasks=${tasks}`]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(
      "· this evaluates chat conversations (the persona set) only, not the run's environment (http://127.0.0.1:9): evaluation.tasks is not set; to evaluate held-out tasks of it, add `--set evaluation.tasks=<tasks.jsonl>`",
    );
  }, 240_000);
});
