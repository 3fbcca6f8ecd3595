// The paper's "sessions until a stable effect", from a run folder: the first evaluated version from which every later
// evaluation is significantly above the base (the paired difference's 95% t interval above 0, the guard's statistic
// mirrored), and how many sessions had a main turn before that version (turns.jsonl). Reads records; changes nothing.
import { createReadStream, existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import type { VersionMetrics } from "../../contracts/evaluation.ts";
import { parseWeightVersion } from "../weights/weight-version-tracker.ts";
import { pairedDifference } from "./evaluation-statistics.ts";
import { MIN_PAIRS } from "./held-out-guard.ts";

export interface StableEffect {
  /** The first version of the stable run of significant gains over the base. */
  version: string;
  baseVersion: string;
  /** Evaluations from `version` on, all significantly above the base (at least 2: one confirms the other). */
  evaluations: number;
}

/** Significantly above the base: over at least MIN_PAIRS sessions both scored, the paired difference's interval lies above 0. */
export function significantGain(candidate: VersionMetrics, base: VersionMetrics): boolean {
  const paired = pairedDifference(candidate.perSession, base.perSession);
  return paired !== null && paired.interval !== null && paired.pairs >= MIN_PAIRS && paired.interval.low > 0;
}

/**
 * Over the evaluations after the base (the first line, as `start` writes it), in order: the first version from which
 * every evaluation is a significant gain, when at least two are (a single one is not yet "for good"); else null.
 */
export function stableEffect(evaluations: readonly VersionMetrics[]): StableEffect | null {
  const [base, ...later] = evaluations;
  if (base === undefined) return null;
  let first = later.length;
  while (first > 0 && significantGain(later[first - 1]!, base)) first -= 1;
  const run = later.length - first;
  return run >= 2 ? { version: later[first]!.version, baseVersion: base.version, evaluations: run } : null;
}

/** Distinct sessions with a main turn whose first tokens came from a weight version below `version` (turns.jsonl holds main turns only). */
export async function sessionsBefore(runDir: string, version: number): Promise<number> {
  const file = path.join(runDir, "turns.jsonl");
  if (!existsSync(file)) return 0;
  const sessions = new Set<string>();
  for await (const line of createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity })) {
    const record = parseLine(line);
    const served = record?.weight_versions?.[0]?.version;
    const parsed = served === undefined ? null : parseWeightVersion(served);
    if (record && parsed !== null && parsed < version) sessions.add(record.session_id);
  }
  return sessions.size;
}

function parseLine(line: string): { session_id: string; weight_versions?: Array<{ version: string }> } | null {
  try {
    const value = JSON.parse(line) as { session_id?: unknown; weight_versions?: Array<{ version: string }> };
    return typeof value.session_id === "string" ? { session_id: value.session_id, weight_versions: value.weight_versions } : null;
  } catch {
    return null; // (a torn last line)
  }
}

/** The line `eval` prints and its report holds. */
export async function stableEffectLine(runDir: string, evaluations: readonly VersionMetrics[]): Promise<string> {
  const effect = stableEffect(evaluations);
  if (effect === null) return "sessions until a stable effect: not yet (no version from which every later evaluation is significantly above the base, confirmed by at least two)";
  const sessions = await sessionsBefore(runDir, Number(effect.version));
  return `sessions until a stable effect: ${sessions} (the held-out score is significantly above the base v${effect.baseVersion} from version ${effect.version} on, in all ${effect.evaluations} evaluations since; ${sessions} sessions had a main turn before version ${effect.version})`;
}
