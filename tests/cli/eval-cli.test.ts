// `openclaw-rl eval --run DIR` against a run folder whose "running start" is a loopback status server in front of a
// real proxy and the stand-in judge: --set applies on top of the run's resolved recipe, and bad input records nothing.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadRecipe } from "../../cli/recipe-file.ts";
import { writeResolvedRecipe } from "../../launchers/resolved-recipe.ts";
import { readEvaluations } from "../../orchestrator/evaluation/evaluation-history.ts";
import { SHIPPED_PERSONAS } from "../../orchestrator/evaluation/held-out-set.ts";
import { policyScript, startEvaluationFixture, type EvaluationFixture } from "../evaluation/evaluation-fixture.ts";
import { freePort } from "../support/loopback.ts";
import { runCliInProcess } from "./cli-process.ts";

describe("openclaw-rl eval --run", () => {
  let fixture: EvaluationFixture;
  let statusServer: Server;
  let runDir: string;
  let personas: string;

  beforeAll(async () => {
    fixture = await startEvaluationFixture(policyScript);
    runDir = await mkdtemp(path.join(tmpdir(), "eval-cli-"));
    statusServer = createServer((request, response) => {
      const authorised = request.headers.authorization === "Bearer test-token";
      response.writeHead(authorised ? 200 : 401, { "content-type": "application/json" });
      response.end(JSON.stringify({ weight_version: "0", endpoints: { proxy: `${fixture.harness.url}/v1` } }));
    });
    await new Promise<void>((resolve) => statusServer.listen(0, "127.0.0.1", resolve));
    const { port } = statusServer.address() as { port: number };
    writeFileSync(path.join(runDir, "admin.json"), JSON.stringify({ url: `http://127.0.0.1:${port}` }));
    writeFileSync(path.join(runDir, "admin-token"), "test-token\n");
    const judgePort = new URL(fixture.judge.url).port;
    const { recipe } = loadRecipe({ set: [`records.dir=${runDir}`, `engine.rehearsal.judge_port=${judgePort}`] });
    writeResolvedRecipe(runDir, recipe); // (the shipped persona set: 8 openers)
    personas = path.join(runDir, "two-openers.jsonl");
    writeFileSync(personas, readFileSync(SHIPPED_PERSONAS, "utf8").trim().split("\n").slice(0, 2).join("\n") + "\n");
  });
  afterAll(async () => {
    await fixture?.close();
    await new Promise((resolve) => statusServer?.close(resolve));
    await rm(runDir, { recursive: true, force: true });
  });

  it("refuses a persona file that is not there, naming it, and records nothing (the run's recipe does not mask --set)", async () => {
    const result = await runCliInProcess(["eval", "--run", runDir, "--set", `evaluation.personas=${path.join(runDir, "missing.jsonl")}`]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("evaluation.personas: cannot read the persona set");
    expect(result.stderr).toContain("missing.jsonl");
    expect(existsSync(path.join(runDir, "evaluations.jsonl"))).toBe(false);
  });

  it("refuses a --samples that is not a whole number, naming the flag once", async () => {
    const result = await runCliInProcess(["eval", "--run", runDir, "--samples", "abc"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--samples: "abc" is not a whole number from 1 to 32');
    expect(existsSync(path.join(runDir, "evaluations.jsonl"))).toBe(false);
  });

  it("refuses a --judge-url that is not a URL before evaluating anything", async () => {
    const result = await runCliInProcess(["eval", "--run", runDir, "--judge-url", "notaurl"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--judge-url "notaurl" is not an http(s) URL');
    expect(existsSync(path.join(runDir, "evaluations.jsonl"))).toBe(false);
  });

  it("records nothing when no session could be scored (a judge that does not answer), naming the failure", async () => {
    const closed = await freePort();
    const result = await runCliInProcess(["eval", "--run", runDir, "--judge-url", `http://127.0.0.1:${closed}`, "--set", `evaluation.personas=${personas}`, "--samples", "1"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("no session of 2 was scored");
    expect(result.stderr).toContain("nothing was recorded");
    expect(existsSync(path.join(runDir, "evaluations.jsonl"))).toBe(false);
  });

  it("evaluates with the run's recipe and this command's --set on top (the persona set given, not the run's)", async () => {
    const result = await runCliInProcess(["eval", "--run", runDir, "--set", `evaluation.personas=${personas}`, "--samples", "1"]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const [metrics] = readEvaluations(runDir);
    expect(metrics).toMatchObject({ version: "0", sessions: 2, scored: 2 });
    expect(Object.keys(metrics!.perSession)).toEqual(["student-essay#0", "student-summary#0"]);
  });
});
