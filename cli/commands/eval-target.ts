// What one `openclaw-rl eval` works on: the run folder's recipe and held-out set, the running start it finds there (its
// proxy, run id and served version) and how a new row names its run; and telling that start of a row. No evaluating.
import { z } from "zod";
import type { VersionMetrics } from "../../contracts/evaluation.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { cliCommand } from "../../lib/cli-command.ts";
import type { EvaluationBasis } from "../../orchestrator/evaluation/evaluation-basis.ts";
import type { RunBase } from "../../orchestrator/evaluation/evaluation-history.ts";
import { EVALUATION_RECORDED_ROUTE } from "../../orchestrator/evaluation/evaluation-announcement.ts";
import type { EvaluationSet } from "../../orchestrator/evaluation/evaluation-plan.ts";
import type { VersionEvaluation } from "../../orchestrator/evaluation/version-evaluation.ts";
import { askAdmin, runFolderTarget } from "../admin-target.ts";

/** What one `eval` works on: the run's recipe and held-out set, the running start (null: none, for a checkpoint), the run and its basis. */
export interface EvalTarget {
  recipe: Recipe;
  runDir: string;
  set: EvaluationSet;
  judgeUrl: string;
  start: LiveStart | null;
  run: string | null;
  basis: EvaluationBasis;
}

/** The run, the base's run and the basis on a new row (a row without a base is the run's base row). */
export function withRun(target: EvalTarget, evaluation: VersionEvaluation, base: RunBase | null): VersionEvaluation {
  Object.assign(evaluation.metrics, { run: target.run, baseRun: base ? (base.metrics.run ?? null) : null, basis: target.basis });
  return evaluation;
}

const statusSchema = z.object({ run_id: z.string().nullable().default(null), weight_version: z.string().nullable(), endpoints: z.object({ proxy: z.string() }) });

/** The running start: its proxy, its run id and the weight version it serves now ("0" before the first update: the base weights). */
export interface LiveStart {
  proxy: string;
  version: string;
  run: string | null;
}

export async function liveVersion(runDir: string): Promise<LiveStart> {
  const status = await askAdmin(runFolderTarget(runDir, NO_START_HINT), "/status", statusSchema);
  return { proxy: status.endpoints.proxy, version: status.weight_version ?? "0", run: status.run_id };
}

/** What a folder without a running start is told (the live version needs one; a checkpoint does not). */
const NO_START_HINT = `evaluate a running start: \`${cliCommand("start")}\`, then \`${cliCommand("eval --run <records.dir>")}\` (a saved checkpoint needs none: --checkpoint)`;

/**
 * Hands the running start a live version's result, so that status, status --json and the dashboard show it as they
 * show continuous evaluation's; says so when the start cannot be told (the line is in evaluations.jsonl either way).
 */
export async function announceToStart(runDir: string, metrics: VersionMetrics): Promise<void> {
  const failure = await (async () => {
    const target = runFolderTarget(runDir, NO_START_HINT);
    const url = `${target.url}${EVALUATION_RECORDED_ROUTE}`;
    const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${target.token}`, "content-type": "application/json" }, body: JSON.stringify(metrics), signal: AbortSignal.timeout(5000) });
    return response.ok ? null : `${url} answered ${response.status} ${(await response.text()).slice(0, 200)}`;
  })().catch((error: unknown) => (error as Error).message);
  if (failure) process.stderr.write(`· the running start was not told of this result (${failure}): it is in evaluations.jsonl, not on status\n`);
}
