// `convert-checkpoint --best`: the checkpoint iteration of the best evaluated weight version in a run folder
// (evaluations.jsonl, best-version.ts's rule), or a typed error that says why there is none and which versions have one.
import type { VersionMetrics } from "../../contracts/evaluation.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { iterationFolderName, listCheckpoints } from "../../lib/checkpoints/checkpoint-list.ts";
import { iterationOfVersion, versionOfIteration } from "../../lib/checkpoints/checkpoint-versions.ts";
import { cliCommand } from "../../lib/cli-command.ts";
import { parseWeightVersion } from "../weights/weight-version-tracker.ts";
import { bestVersion } from "./best-version.ts";
import { EVALUATIONS_FILE } from "./continuous-evaluation.ts";
import { readEvaluations } from "./evaluation-history.ts";

export interface BestCheckpoint {
  best: VersionMetrics;
  iteration: number;
}

const percent = (value: number | null) => (value === null ? "–" : `${(100 * value).toFixed(1)}%`);

/** The best evaluated version of `runDir` and the complete checkpoint in `saveDir` that holds its weights. */
export function bestCheckpoint(runDir: string, saveDir: string): BestCheckpoint {
  const evaluations = readEvaluations(runDir);
  const best = bestVersion(evaluations);
  if (best === null) {
    throw new OpenclawRlError("EVALUATION_MISSING", `no held-out evaluation with a scored session in ${runDir}/${EVALUATIONS_FILE}`, {
      path: "--best",
      hint: `evaluate versions while training (evaluation.every_versions in the recipe, or \`${cliCommand(`eval --run ${runDir}`)}\`), or pass --iteration`,
    });
  }
  refuseRestartedVersions(evaluations);
  const saved = listCheckpoints(saveDir).filter((entry) => !entry.inProgress);
  const version = parseWeightVersion(best.version);
  const iteration = version === null ? null : iterationOfVersion(version);
  const found = iteration === null ? undefined : saved.find((entry) => entry.iteration === iteration);
  if (found) return { best, iteration: found.iteration };
  const why =
    iteration === null
      ? `the best evaluated version is v${best.version} (score ${percent(best.meanScore)}), the untrained weights: model.path (or training.load_dir) already holds them`
      : `the best evaluated version v${best.version} (score ${percent(best.meanScore)}) has no saved checkpoint (${iterationFolderName(iteration)} in ${saveDir})`;
  throw new OpenclawRlError("CHECKPOINT_MISSING", `${why}; ${withCheckpoints(evaluations, new Set(saved.map((entry) => entry.iteration)))}`, {
    path: "--best",
    hint: "pass --iteration with one of those; version v has a checkpoint when training.save_interval divides v − 1 (save_interval 1: every version) and training.keep_checkpoints keeps it",
  });
}

/** The evaluated versions whose weights a saved checkpoint holds, best first, or that none has. */
function withCheckpoints(evaluations: readonly VersionMetrics[], iterations: ReadonlySet<number>): string {
  const covered = evaluations
    .filter((metrics) => {
      const version = parseWeightVersion(metrics.version);
      const iteration = version === null ? null : iterationOfVersion(version);
      return iteration !== null && iterations.has(iteration);
    })
    .sort((left, right) => (right.meanScore ?? -1) - (left.meanScore ?? -1));
  if (covered.length > 0) return `evaluated versions with a checkpoint: ${covered.map((metrics) => `v${metrics.version} (--iteration ${iterationOfVersion(Number(metrics.version))}, score ${percent(metrics.meanScore)})`).join(", ")}`;
  const kept = [...iterations].sort((left, right) => left - right).map((iteration) => `${iterationFolderName(iteration)} (v${versionOfIteration(iteration)})`);
  return `no evaluated version (${evaluations.map((metrics) => `v${metrics.version}`).join(", ")}) has one; saved: ${kept.length > 0 ? kept.join(", ") : "none"}`;
}

/** Versions that went down between evaluations: slime restarted and counts from 0 again, so a version names no one checkpoint. */
function refuseRestartedVersions(evaluations: readonly VersionMetrics[]): void {
  for (let index = 1; index < evaluations.length; index += 1) {
    const [earlier, later] = [evaluations[index - 1]!, evaluations[index]!];
    if (Number(later.version) < Number(earlier.version)) {
      throw new OpenclawRlError("EVALUATION_REFUSED", `versions went down in ${EVALUATIONS_FILE} (v${earlier.version} then v${later.version}): slime restarted and counted its weight versions from 0 again, so a version no longer names one checkpoint`, {
        path: "--best",
        hint: "pass --iteration with the checkpoint you want (status lists them)",
      });
    }
  }
}
