// Which base a run pairs with (evaluation-history.ts): its own base row first, else the latest earlier run's base on
// the same basis (reused), never one on another basis or without one; and the rows a run shows.
import { describe, expect, it } from "vitest";
import type { VersionMetrics } from "../../contracts/evaluation.ts";
import { baseFor, latestRun, runRows } from "../../orchestrator/evaluation/evaluation-history.ts";
import { summarise } from "../../orchestrator/evaluation/version-evaluation.ts";

const basis = { weights: "stand-in builtin:qwen3 seed 0", plan: "aaaaaaaaaaaaaaaa" };

function row(version: string, run: string | undefined, options: { base?: boolean; basis?: VersionMetrics["basis"] | null; at?: number } = {}): VersionMetrics {
  const metrics = summarise(version, [{ openerId: "o", sample: 0, transcript: [], votes: [], score: 0.5, failure: null }], { policy: 1, simulator: 0, scorer: 1 }, null);
  if (!options.base) metrics.baseVersion = "0";
  if (run !== undefined) metrics.run = run;
  if (options.basis !== null) metrics.basis = options.basis ?? basis;
  metrics.at = options.at ?? metrics.at;
  return metrics;
}

describe("a run's base and rows", () => {
  it("pairs with the run's own base row, even when an earlier run's base is on the same basis", () => {
    const earlier = row("0", "run-a", { base: true, at: 1 });
    const own = row("0", "run-b", { base: true, at: 2 });
    expect(baseFor([earlier, row("9", "run-a"), own], "run-b", basis)).toEqual({ metrics: own, reused: false });
  });

  it("reuses the latest earlier base on the same basis, and none on another basis or without a basis", () => {
    const first = row("0", "run-a", { base: true, at: 1 });
    const second = row("0", "run-b", { base: true, at: 2 });
    expect(baseFor([first, second, row("7", "run-b")], "run-c", basis)).toEqual({ metrics: second, reused: true });
    expect(baseFor([first, second], "run-c", { ...basis, plan: "bbbbbbbbbbbbbbbb" })).toBeNull();
    expect(baseFor([first, second], "run-c", { ...basis, weights: "stand-in builtin:qwen3 seed 1" })).toBeNull();
    // a line written before runs and bases were recorded (the old "15 (base)") is no base for anyone
    expect(baseFor([row("15", undefined, { base: true, basis: null })], "run-c", basis)).toBeNull();
    expect(baseFor([row("15", undefined, { base: true, basis: null })], null, basis)).toBeNull();
  });

  it("shows the run's base first, then its own rows, leaving other runs' rows out", () => {
    const base = row("0", "run-a", { base: true, at: 1 });
    const other = row("12", "run-a", { at: 2 });
    const mine = [row("3", "run-b", { at: 3 }), row("5", "run-b", { at: 4 })];
    const all = [base, other, ...mine];
    expect(runRows(all, "run-b", { metrics: base, reused: true })).toEqual([base, ...mine]);
    // the base as read back from the file again (another object, the same row) is not shown twice
    const ownBase = row("0", "run-b", { base: true, at: 5 });
    expect(runRows([...all, ownBase], "run-b", { metrics: { ...ownBase }, reused: false })).toEqual([{ ...ownBase }, ...mine]);
    expect(latestRun(all)).toBe("run-b");
    expect(latestRun([row("0", undefined, { base: true })])).toBeNull();
  });
});
