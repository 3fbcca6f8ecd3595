// The stand-in trainer's style softmax under each method's advantages (binary rewards, OPD teacher − old,
// combine both), on synthetic bridge-shaped batches: the rejected style's probability must fall.
import path from "node:path";
import { execa } from "execa";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";
import { describe, expect, it } from "vitest";

describe("StyleLearner (standin_learner.py)", () => {
  it("pushes the rejected style down for binary, opd and combine", async () => {
    const result = await execa("/usr/bin/python3", ["tests/rehearsal/fixtures/learner_check.py", "binary", "opd", "combine"], {
      env: { PYTHONPATH: ["native", "rehearsal"].join(path.delimiter) },
      reject: false,
      timeout: HANG_GUARD_MS,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const histories = JSON.parse(result.stdout) as Record<string, Array<Record<string, number>>>;
    for (const method of ["binary", "opd", "combine"]) {
      const ai = histories[method]!.map((step) => step.ai!);
      expect(ai[0], method).toBeLessThan(1 / 3);
      expect(ai.at(-1), method).toBeLessThan(0.1);
      for (let step = 1; step < ai.length; step += 1) expect(ai[step]!, `${method} step ${step}`).toBeLessThanOrEqual(ai[step - 1]! + 1e-6);
    }
  });
});
