// evaluation.stop_if_worse through the orchestrator `start` runs (orchestrator/run.ts), on loopback: a scripted policy
// engine that answers plainly at the base and in the AI style once its weight version moves (deterministically worse
// under the stand-in scorer's rubric), the rehearsal's stand-in judge as simulator and scorer. The guard pauses
// training and says why on the bus and on status (text and JSON, the best version named); `openclaw-rl resume-training`
// resumes it through the admin API.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../contracts/events.ts";
import { formatStatus } from "../../cli/commands/status-format.ts";
import { startOrchestrator, type RunningOrchestrator } from "../../orchestrator/run.ts";
import { runCliInProcess } from "../cli/cli-process.ts";
import { until } from "../support/loopback.ts";
import { fixtureRecipe, startEvaluationFixture, type EvaluationFixture } from "./evaluation-fixture.ts";

const PLAIN = "<think>\nok\n</think>\n\nSure. Start with one short sentence.";
const AI_STYLE = "<think>\nok\n</think>\n\nAs an AI language model, I can tell you that this works. I hope this helps!";

describe("evaluation.stop_if_worse in the orchestrator", () => {
  let worse = false;
  let fixture: EvaluationFixture;
  let orchestrator: RunningOrchestrator;
  let runDir: string;
  const events: RunEvent[] = [];

  beforeAll(async () => {
    fixture = await startEvaluationFixture(() => (worse ? AI_STYLE : PLAIN));
    runDir = mkdtempSync(path.join(tmpdir(), "stop-if-worse-"));
    // 6 one-reply openers × 1 sample: the fewest sessions a drop can be significant on (MIN_PAIRS)
    const recipe = fixtureRecipe(fixture, runDir, 6, { every_versions: 1, stop_if_worse: true });
    const ready = () => ({ ready: true, reason: "test", retryAfterS: 0 });
    orchestrator = await startOrchestrator({ recipe, runDir, apiKey: undefined, engines: { policy: fixture.harness.standin.url, judge: fixture.judge.url }, readiness: ready, ports: { proxy: 0, admin: 0 } });
    orchestrator.bus.subscribe((event) => void events.push(event));
  });
  afterAll(async () => {
    await orchestrator?.stop();
    await fixture?.close();
    rmSync(runDir, { recursive: true, force: true });
  });

  it("a version significantly below the best pauses training, says why on every screen, and resume-training resumes it", async () => {
    const status = () => orchestrator.status.snapshot();
    await until("the base's evaluation", async () => (status().evaluation.versions.length === 1 ? true : null), 60_000);
    expect(status().evaluation).toMatchObject({ stop_if_worse: true, best: { version: "0", mean_score: 1 } });
    expect(status().training.paused).toBe(false);

    worse = true; // the next weights answer in the AI style: every session scores 0
    await fetch(`${fixture.harness.standin.url}/update_weight_version`, { method: "POST", body: JSON.stringify({ new_version: "2" }) });
    await until("the pause", async () => (status().training.paused ? true : null), 60_000);

    const snapshot = status();
    expect(snapshot.evaluation.versions.map((point) => [point.version, point.mean_score])).toEqual([["0", 1], ["2", 0]]);
    expect(snapshot.evaluation.best).toMatchObject({ version: "0", mean_score: 1 });
    const message = "held-out score of version 2 (0.0% [0.0%, 0.0%]) significantly below best version 0 (100.0% [100.0%, 100.0%]): paired difference −100.0 points [−100.0, −100.0] over 6 sessions";
    expect(snapshot.training).toMatchObject({ paused: true, message });
    expect(snapshot.training.resume).toContain(`resume-training --run ${runDir}`);
    const paused = events.find((event) => event.type === "training-paused");
    expect(paused).toMatchObject({ reason: "held-out-worse", message, drop: { version: "2", bestVersion: "0", pairs: 6 } });
    const text = formatStatus(snapshot);
    expect(text).toContain(`TRAINING PAUSED: ${message}`);
    expect(text).toContain("best so far v0: score 100.0% [100.0, 100.0]");

    const admin = ["--url", orchestrator.urls.admin, "--token", orchestrator.adminToken];
    const resumed = await runCliInProcess(["resume-training", ...admin]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^✓ training resumed \(paused since .*: held-out score of version 2/);
    expect(status().training).toEqual({ paused: false, since: null, message: null, resume: null });
    expect(events.filter((event) => event.type === "training-resumed")).toMatchObject([{ by: "POST /training/resume" }]);
    const again = await runCliInProcess(["resume-training", ...admin]);
    expect(again.stdout).toBe("· training was not paused: nothing to resume\n");
  });
});
