// The evaluations a run folder holds (evaluations.jsonl, written by `start` and by `openclaw-rl eval`): read back
// in order, the base being the first evaluated (the version before any training when evaluation began at the start).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { versionMetricsSchema, type VersionMetrics } from "../../contracts/evaluation.ts";
import { EVALUATIONS_FILE } from "./continuous-evaluation.ts";

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

/** The base: the lowest version evaluated (0, "default", before any weight update, when there is one). */
export function baseOf(evaluations: readonly VersionMetrics[]): VersionMetrics | null {
  return evaluations.reduce<VersionMetrics | null>((lowest, metrics) => (lowest === null || Number(metrics.version) < Number(lowest.version) ? metrics : lowest), null);
}
