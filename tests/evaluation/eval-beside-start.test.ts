// `openclaw-rl eval --run DIR` beside a running start (orchestrator/run.ts on loopback, continuous evaluation off):
// the live version's result reaches the start's one run tally through POST /evaluation/recorded, so status and the
// dashboard show it as they show continuous evaluation's; a body that is not a version's metrics is a 400 naming it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { writeResolvedRecipe } from "../../launchers/resolved-recipe.ts";
import { EVALUATION_RECORDED_ROUTE } from "../../orchestrator/evaluation/evaluation-announcement.ts";
import { readEvaluations } from "../../orchestrator/evaluation/evaluation-history.ts";
import { startOrchestrator, type RunningOrchestrator } from "../../orchestrator/run.ts";
import { ADMIN_ENDPOINT_FILE } from "../../orchestrator/status/admin-token.ts";
import { runCliInProcess } from "../cli/cli-process.ts";
import { fixtureRecipe, startEvaluationFixture, type EvaluationFixture } from "./evaluation-fixture.ts";

const PLAIN = "<think>\nok\n</think>\n\nSure. Start with one short sentence.";

describe("openclaw-rl eval beside a running start", () => {
  let fixture: EvaluationFixture;
  let orchestrator: RunningOrchestrator;
  let runDir: string;

  beforeAll(async () => {
    fixture = await startEvaluationFixture(() => PLAIN);
    runDir = mkdtempSync(path.join(tmpdir(), "eval-beside-start-"));
    const recipe = fixtureRecipe(fixture, runDir, 2, {}); // (continuous evaluation off)
    const ready = () => ({ ready: true, reason: "test", retryAfterS: 0 });
    orchestrator = await startOrchestrator({ recipe, runDir, apiKey: undefined, engines: { policy: fixture.harness.standin.url, judge: fixture.judge.url }, readiness: ready, ports: { proxy: 0, admin: 0 } });
    // what `start` writes beside the orchestrator: the admin endpoint and the resolved recipe
    writeFileSync(path.join(runDir, ADMIN_ENDPOINT_FILE), JSON.stringify({ url: orchestrator.urls.admin, pid: process.pid }) + "\n");
    writeResolvedRecipe(runDir, recipe);
  });
  afterAll(async () => {
    await orchestrator?.stop();
    await fixture?.close();
    rmSync(runDir, { recursive: true, force: true });
  });

  it("shows the eval command's live result on status (the one run tally), as continuous evaluation's would be", async () => {
    expect(orchestrator.status.snapshot().evaluation.versions).toEqual([]);
    const result = await runCliInProcess(["eval", "--run", runDir]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("was not told");
    const [recorded] = readEvaluations(runDir);
    expect(recorded).toMatchObject({ version: "0", served: "live", sessions: 2, scored: 2 });
    const shown = orchestrator.status.snapshot().evaluation;
    expect(shown.versions.map((point) => [point.version, point.mean_score, point.requests])).toEqual([["0", recorded!.meanScore, recorded!.requests.policy + recorded!.requests.simulator + recorded!.requests.scorer]]);
    expect(shown.best).toMatchObject({ version: "0" });
  });

  it("refuses a body that is not a version's metrics, naming the field, and shows nothing of it", async () => {
    const post = (body: string) => fetch(`${orchestrator.urls.admin}${EVALUATION_RECORDED_ROUTE}`, { method: "POST", headers: { authorization: `Bearer ${orchestrator.adminToken}` }, body });
    const notJson = await post("{");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { message: string } }).error.message).toBe(`POST ${EVALUATION_RECORDED_ROUTE}: the body is not JSON`);
    const noVersion = await post(JSON.stringify({ sessions: 2 }));
    expect(noVersion.status).toBe(400);
    expect(((await noVersion.json()) as { error: { message: string } }).error.message).toMatch(new RegExp(`^POST ${EVALUATION_RECORDED_ROUTE}: [a-zA-Z]+: `));
    const unauthorised = await fetch(`${orchestrator.urls.admin}${EVALUATION_RECORDED_ROUTE}`, { method: "POST", body: "{}" });
    expect(unauthorised.status).toBe(401);
    expect(orchestrator.status.snapshot().evaluation.versions).toHaveLength(1);
  });
});
