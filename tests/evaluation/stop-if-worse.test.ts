// evaluation.stop_if_worse through the orchestrator `start` runs (orchestrator/run.ts), on loopback: a scripted policy
// engine that answers plainly at the base and in the AI style once its weight version moves (deterministically worse
// under the stand-in scorer's rubric), the rehearsal's stand-in judge as simulator and scorer. The guard pauses
// training and says why on the bus and on status (text and JSON, the best version named); `openclaw-rl resume-training`
// resumes it through the admin API. The pause outlives a restart of start on the same folder (training-pause.json).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../contracts/events.ts";
import { formatStatus } from "../../cli/commands/status-format.ts";
import { PAUSE_RECORD_FILE } from "../../orchestrator/bridge/training-pause-record.ts";
import { startOrchestrator, type RunningOrchestrator } from "../../orchestrator/run.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { TestBridgeClient } from "../bridge/fixture-process.ts";
import { makeSample } from "../bridge/sample-factory.ts";
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

// The pause outlives a restart of `start` on the same run folder (training-pause.json): the restarted orchestrator
// hands the trainer no batch though one is ready, every screen says it is paused and since when, and resume-training
// resumes it (the record gone, so a further restart trains); a damaged record fails the start, naming the file.
describe("evaluation.stop_if_worse across a restart of start", () => {
  let worse = false;
  let fixture: EvaluationFixture;
  let runDir: string;
  let orchestrator: RunningOrchestrator | null = null;
  const ready = () => ({ ready: true, reason: "test", retryAfterS: 0 });
  const startOn = async (dir: string) =>
    startOrchestrator({ recipe: fixtureRecipe(fixture, dir, 6, { every_versions: 1, stop_if_worse: true }), runDir: dir, apiKey: undefined, engines: { policy: fixture.harness.standin.url, judge: fixture.judge.url }, readiness: ready, ports: { proxy: 0, admin: 0 } });
  const stopRun = async () => {
    await orchestrator?.stop();
    orchestrator = null;
  };

  beforeAll(async () => {
    fixture = await startEvaluationFixture(() => (worse ? AI_STYLE : PLAIN));
    runDir = mkdtempSync(path.join(tmpdir(), "stop-if-worse-restart-"));
  });
  afterAll(async () => {
    await stopRun();
    await fixture?.close();
    rmSync(runDir, { recursive: true, force: true });
  });

  it("a pause, a stop and a start on the same folder: still paused (no batch, every screen says so) until resume-training", async () => {
    orchestrator = await startOn(runDir);
    const status = () => orchestrator!.status.snapshot();
    await until("the base's evaluation", async () => (status().evaluation.versions.length === 1 ? true : null), 60_000);
    worse = true;
    await fetch(`${fixture.harness.standin.url}/update_weight_version`, { method: "POST", body: JSON.stringify({ new_version: "2" }) });
    await until("the pause", async () => (status().training.paused ? true : null), 60_000);
    const first = status().training;
    const record = path.join(runDir, PAUSE_RECORD_FILE);
    await stopRun();
    expect(JSON.parse(readFileSync(record, "utf8"))).toMatchObject({ version: 1, reason: "held-out-worse", since: first.since, message: first.message, drop: { version: "2", bestVersion: "0", pairs: 6 } });

    // samples the last run judged and no trainer took yet: a batch's worth is ready in the folder's store
    const store = await SampleStore.open(path.join(runDir, "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(), 2) });
    await store.put(makeSample(0));
    await store.put(makeSample(1));
    await store.close();

    orchestrator = await startOn(runDir);
    const since = new Date(first.since!).toISOString();
    const message = `${first.message} (paused before a restart, since ${since})`;
    expect(status().training).toMatchObject({ paused: true, since: first.since, message });
    expect(status().training.resume).toContain(`resume-training --run ${runDir}`);
    expect(formatStatus(status())).toContain(`TRAINING PAUSED: ${message}`);
    const recent = orchestrator.bus.recent();
    expect(recent.find((event) => event.type === "training-paused")).toMatchObject({ reason: "held-out-worse", message, since: first.since, drop: { version: "2", bestVersion: "0" } });
    expect(recent.find((event) => event.type === "store-opened")).toMatchObject({ ready: 2 });

    const trainer = new TestBridgeClient(orchestrator.urls.bridge!, orchestrator.bridgeToken!);
    await trainer.hello();
    expect(await trainer.batch(0, 2, 300)).toBeNull(); // paused: batch-wait though 2 samples are ready
    const waiting = trainer.batch(0, 2, 30_000);
    const resumed = await runCliInProcess(["resume-training", "--url", orchestrator.urls.admin, "--token", orchestrator.adminToken]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(`✓ training resumed (paused since ${since}: ${message})\n`);
    expect((await waiting)?.samples.map((sample) => sample.id)).toEqual(["session-0:0", "session-1:1"]);
    expect(existsSync(record)).toBe(false); // (removed before resume-training was answered)
    expect(status().training.paused).toBe(false);

    await stopRun();
    orchestrator = await startOn(runDir);
    expect(status().training).toEqual({ paused: false, since: null, message: null, resume: null });
    expect(orchestrator.bus.recent().some((event) => event.type === "training-paused")).toBe(false);
    await stopRun();
  });

  it("a damaged record fails the start with a typed error naming the file and how to fix it, and is left in place", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "stop-if-worse-damaged-"));
    const record = path.join(dir, PAUSE_RECORD_FILE);
    try {
      writeFileSync(record, '{"version": 1, "reason": "held-out-wor');
      await expect(startOn(dir)).rejects.toMatchObject({
        code: "STORE_CORRUPT",
        path: record,
        message: expect.stringContaining(`the training pause record ${record} is not JSON`),
        hint: expect.stringContaining(`remove it (\`rm ${record}\`) to start with training running`),
      });
      expect(readFileSync(record, "utf8")).toBe('{"version": 1, "reason": "held-out-wor');

      writeFileSync(record, JSON.stringify({ version: 1, reason: "held-out-worse", since: 1, message: "v2 below v0", drop: { version: "2" } }));
      await expect(startOn(dir)).rejects.toMatchObject({ code: "STORE_CORRUPT", path: record, message: expect.stringContaining(`${record} is damaged: drop.meanScore:`) });
      expect(existsSync(record)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
