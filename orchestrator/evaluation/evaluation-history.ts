// The evaluations a run folder holds (evaluations.jsonl, written by `start` and by `openclaw-rl eval`, of every run
// in it): read back in order, each run's own rows and the base it pairs with (its own, or an earlier run's on the same basis).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { versionMetricsSchema, type VersionMetrics } from "../../contracts/evaluation.ts";
import { EVALUATIONS_FILE } from "./continuous-evaluation.ts";
import { sameBasis, type EvaluationBasis } from "./evaluation-basis.ts";

/** Every well-formed line of <runDir>/evaluations.jsonl (a torn last line, from a kill mid-write, is skipped). */
export function readEvaluations(runDir: string): VersionMetrics[] {
  const file = path.join(runDir, EVALUATIONS_FILE);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      if (line.trim().length === 0) return [];
      try {
        const parsed = versionMetricsSchema.safeParse(JSON.parse(line));
        return parsed.success ? [parsed.data] : [];
      } catch {
        return [];
      }
    });
}

/** A run's base: the row its later rows pair with, and whether it is an earlier run's, reused on the same basis. */
export interface RunBase {
  metrics: VersionMetrics;
  reused: boolean;
}

/**
 * The base `run` pairs with: its own base row (the base weights evaluated in this run), else the latest base row of
 * an earlier run with the same base weights and evaluation plan (reused); null when neither exists.
 */
export function baseFor(evaluations: readonly VersionMetrics[], run: string | null, basis: EvaluationBasis): RunBase | null {
  const bases = evaluations.filter((metrics) => metrics.baseVersion === null);
  const own = bases.find((metrics) => (metrics.run ?? null) === run && (run !== null || sameBasis(metrics.basis, basis)));
  if (own) return { metrics: own, reused: false };
  const earlier = bases.filter((metrics) => sameBasis(metrics.basis, basis)).pop();
  return earlier ? { metrics: earlier, reused: true } : null;
}

/** What a run shows: its base first (its own or the reused one), then its other rows in order; other runs' rows are left out. */
export function runRows(evaluations: readonly VersionMetrics[], run: string | null, base: RunBase | null): VersionMetrics[] {
  const isBase = (metrics: VersionMetrics) => base !== null && metrics.at === base.metrics.at && metrics.version === base.metrics.version && metrics.run === base.metrics.run;
  const own = evaluations.filter((metrics) => (metrics.run ?? null) === run && !isBase(metrics));
  return base ? [base.metrics, ...own] : own;
}

/** The run of the latest line that names one: the run a folder's evaluations belong to when no start runs. */
export function latestRun(evaluations: readonly VersionMetrics[]): string | null {
  return evaluations.findLast((metrics) => metrics.run)?.run ?? null;
}
