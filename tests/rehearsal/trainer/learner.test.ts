// The stand-in trainer's style softmax under each method's advantages (binary rewards, OPD teacher − old,
// combine both; hybrid through native's hybrid math), on synthetic bridge-shaped batches: the rejected style's
// probability must fall. The hybrid's rows hold the log-probs they claim, and an overlap-guided choice picks by overlap.
import path from "node:path";
import { execa } from "execa";
import { HANG_GUARD_MS } from "../../support/hang-guard.ts";
import { describe, expect, it } from "vitest";

describe("StyleLearner (rehearsal/trainer/learner.py)", () => {
  it("pushes the rejected style down for binary, opd and combine", async () => {
    const result = await execa("/usr/bin/python3", ["tests/rehearsal/fixtures/learner_check.py", "binary", "opd", "combine"], {
      env: { PYTHONPATH: ["native", "rehearsal/trainer"].join(path.delimiter) },
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

  it("hybrid: rows hold their log-probs, k* follows the overlap, and every selection × subset cell pushes the rejected style down", async () => {
    const result = await execa("/usr/bin/python3", ["tests/rehearsal/fixtures/hybrid_check.py"], {
      env: { PYTHONPATH: ["native", "rehearsal/trainer"].join(path.delimiter) },
      reject: false,
      timeout: 120_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const checked = JSON.parse(result.stdout) as {
      rows: { gap: number; mass: number; at_teacher_gap: number; decision_row: number[] };
      k2: Record<string, Record<string, number>>;
      k4: Record<string, number>;
      cells: Record<string, number[]>;
    };
    // log_softmax of the stand-in's logits rows is what the rows hold (old, teacher-at ids), the masses sum to one
    expect(checked.rows.gap).toBeLessThan(1e-6);
    expect(checked.rows.at_teacher_gap).toBeLessThan(1e-6);
    expect(checked.rows.mass).toBeLessThan(1e-6);
    const styles = [0.3, -0.2, 0.5].map((value) => value - Math.log(Math.exp(0.3) + Math.exp(-0.2) + Math.exp(0.5)));
    expect(checked.rows.decision_row.slice(0, 3)).toEqual([styles[2], styles[0], styles[1]].map((value) => expect.closeTo(value!, 5)));
    expect(checked.rows.decision_row[3]).toBeCloseTo(Math.log(1e-6 * 0.5), 5); // K = 4 > 3 styles: a filler of the floor
    // top-2: candidate 1 overlaps the student in 2 ids where candidate 0 does in 1 (10 response tokens, 1 decision)
    expect(checked.k2.sequence_optimal!.sel_k_star_mean).toBe(1);
    expect(checked.k2.sequence_optimal!.sel_overlap_at_k_star).toBe(2);
    expect(checked.k2.token_optimal!.sel_k_star_mean).toBeCloseTo(0.1, 6);
    expect(checked.k2.shortest!.sel_k_star_mean).toBe(0);
    expect(checked.k2.shortest!.opd_loss).not.toBeCloseTo(checked.k2.sequence_optimal!.opd_loss!, 3); // another teacher
    expect(checked.k4.sel_overlap_at_k_star).toBe(4); // K >= 3: every row holds all three styles, the choice ties
    expect(Object.keys(checked.cells)).toHaveLength(9);
    for (const [cell, ai] of Object.entries(checked.cells)) {
      expect(ai[0], cell).toBeLessThan(1 / 3);
      for (let step = 1; step < ai.length; step += 1) expect(ai[step]!, `${cell} step ${step}`).toBeLessThan(ai[step - 1]!);
    }
  });
});
