// Continuous evaluation against a real proxy and the stand-in judge: the base once the gate opens, then a version
// that advanced by every_versions (not one that advanced less), each written to evaluations.jsonl and announced.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../contracts/events.ts";
import { ContinuousEvaluation, EVALUATION_SESSIONS_FILE } from "../../orchestrator/evaluation/continuous-evaluation.ts";
import { readEvaluations } from "../../orchestrator/evaluation/evaluation-history.ts";
import { readPersonaSet, SHIPPED_PERSONAS } from "../../orchestrator/evaluation/held-out-set.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { until } from "../support/loopback.ts";
import { policyScript, startEvaluationFixture, type EvaluationFixture } from "./evaluation-fixture.ts";

describe("continuous evaluation", () => {
  let fixture: EvaluationFixture;
  let recordsDir: string;

  beforeAll(async () => {
    fixture = await startEvaluationFixture(policyScript);
    recordsDir = await mkdtemp(path.join(tmpdir(), "continuous-evaluation-"));
  });
  afterAll(async () => {
    await fixture?.close();
    await rm(recordsDir, { recursive: true, force: true });
  });

  it("evaluates the base when the gate opens, then each version N past the last, announcing each on the bus", async () => {
    const openers = (await readPersonaSet(SHIPPED_PERSONAS)).slice(0, 3);
    const bus = new EventBus();
    const done: Extract<RunEvent, { type: "evaluation-done" }>[] = [];
    bus.subscribe((event) => void (event.type === "evaluation-done" && done.push(event)));
    const weights = new WeightVersionTracker(0);
    let ready = false;
    const basis = { weights: "stand-in builtin:qwen3 seed 0", plan: "0123456789abcdef" };
    const evaluation = new ContinuousEvaluation({ bus, weights, everyVersions: 2, recordsDir, run: "run-a", basis, ready: () => ready, plan: () => fixture.plan(openers, 1) });
    evaluation.start();
    try {
      ready = true;
      await until("the base's evaluation", async () => (done.length === 1 ? true : null), 60_000);
      expect(done[0]).toMatchObject({ version: "0", versionAtEnd: "0", baseVersion: null, sessions: 3, scored: 3, episodes: null });
      weights.observe("1"); // (advanced by 1 < 2: not due)
      weights.observe("2");
      await until("version 2's evaluation", async () => (done.length === 2 ? true : null), 60_000);
      expect(done[1]).toMatchObject({ version: "2", baseVersion: "0", sessions: 3 });
      expect(done[1]!.winRate).toBe(0.5); // (the same scripted policy: every pair ties)
    } finally {
      await evaluation.close();
    }
    expect(readEvaluations(recordsDir).map((metrics) => metrics.version)).toEqual(["0", "2"]);
    // every row names its run and basis; the first is the run's base row, the next pairs with it
    expect(readEvaluations(recordsDir).map(({ run, baseRun, baseVersion, basis: rowBasis }) => ({ run, baseRun, baseVersion, rowBasis }))).toEqual([
      { run: "run-a", baseRun: null, baseVersion: null, rowBasis: basis },
      { run: "run-a", baseRun: "run-a", baseVersion: "0", rowBasis: basis },
    ]);
    expect(done.map((event) => event.run)).toEqual(["run-a", "run-a"]);
    const sessions = (await readFile(path.join(recordsDir, EVALUATION_SESSIONS_FILE), "utf8")).trim().split("\n");
    expect(sessions).toHaveLength(6);
    expect(fixture.harness.closed).toEqual([]);
  });
});
