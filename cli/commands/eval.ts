// `openclaw-rl eval [--run DIR] [--checkpoint C] [--judge-url URL] [--samples N] [--json]`: evaluates the version a
// running start serves now, or a saved checkpoint served by a server of its own, on the held-out set, paired against
// the run's base (the base weights, evaluated first when the run has none), and writes the run's rows to
// evaluation.json, evaluation-report.md and evaluation.svg beside evaluations.jsonl (every run's rows).
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { SessionResult, VersionMetrics } from "../../contracts/evaluation.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { resolvedRecipePath } from "../../launchers/resolved-recipe.ts";
import { EVALUATION_SESSIONS_FILE, EVALUATIONS_FILE } from "../../orchestrator/evaluation/continuous-evaluation.ts";
import { baseFor, latestRun, readEvaluations, runRows, type RunBase } from "../../orchestrator/evaluation/evaluation-history.ts";
import { evaluationBasis } from "../../orchestrator/evaluation/evaluation-basis.ts";
import { buildEvaluationPlan, heldOutTasksFile, readEvaluationSet, type EvaluationSet } from "../../orchestrator/evaluation/evaluation-plan.ts";
import { evaluationMarkdown, evaluationSvg, evaluationTable } from "../../orchestrator/evaluation/evaluation-report.ts";
import { stableEffectLine } from "../../orchestrator/evaluation/stable-effect.ts";
import { firstReplyLine } from "../../orchestrator/evaluation/first-reply-verdicts.ts";
import { evaluateVersion, type VersionEvaluation } from "../../orchestrator/evaluation/version-evaluation.ts";
import { cliCommand, shellWord } from "../../lib/cli-command.ts";
import { JsonlAppendFile } from "../../orchestrator/records/jsonl-append-file.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { loadRecipe } from "../recipe-file.ts";
import { checkpointPlanText, evaluateCheckpoint, planServing } from "./eval-checkpoint.ts";
import { announceToStart, liveVersion, withRun, type EvalTarget } from "./eval-target.ts";

interface EvalOptions extends CommonOptions {
  run?: string;
  judgeUrl?: string;
  samples?: string;
  checkpoint?: string;
  plan?: boolean;
  json?: boolean;
}

export function registerEvalCommand(program: Command): void {
  withRecipeOptions(program.command("eval"))
    .description("Evaluate a weight version (the live one of a running start, or a saved checkpoint) on the held-out set, paired against the run's base (the base weights, evaluated first when the run has none)")
    .option("--run <dir>", "run folder of the running start (default: records.dir of the recipe)")
    .option("--judge-url <url>", "the scorer's (and by default the simulator's) engine; default: the run's judge engine")
    .option("--samples <n>", "sessions per opener (default: evaluation.samples)")
    .option("--checkpoint <which>", "evaluate saved weights on a server of their own: rehearsal vN | base | policy-vN.json; slime N | iter_NNNNNNN (converted first with convert-checkpoint) | base (model.path)")
    .option("--plan", "with --checkpoint: print the server that would serve it (command, GPUs, URL) and run nothing")
    .option("--json", "print this version's metrics as JSON")
    .action(async (options: EvalOptions) => {
      const runDir = path.resolve(options.run ?? recipeFromOptions(options).recipe.records.dir);
      const recipe = withSamples(runRecipe(runDir, options), options.samples);
      if (options.plan) return void process.stdout.write(await checkpointPlanText(recipe, runDir, options.checkpoint));
      const judgeUrl = judgeUrlOf(options.judgeUrl, recipe);
      const set = await readEvaluationSet(recipe);
      sayWhatIsEvaluated(recipe, set);
      const history = readEvaluations(runDir);
      const start = await liveVersion(runDir).catch((error: unknown) => (options.checkpoint ? null : Promise.reject(error)));
      const target: EvalTarget = { recipe, runDir, set, judgeUrl, start, run: start?.run ?? latestRun(history), basis: evaluationBasis(recipe, set) };
      const serving = options.checkpoint ? await planServing(recipe, runDir, options.checkpoint, start !== null) : null;
      const base = await baseToPairWith(target, baseFor(history, target.run, target.basis), serving?.version ?? start!.version);
      const evaluation = serving ? await evaluateCheckpoint(target, serving, base) : await evaluateLive(target, base);
      await record(target, evaluation);
      const { shown, notes } = await writeReport(target, base ?? { metrics: evaluation.metrics, reused: false });
      if (options.json) return void process.stdout.write(`${JSON.stringify(evaluation.metrics, null, 2)}\n`);
      process.stdout.write(evaluationTable(shown));
      process.stdout.write(notes.map((note) => `${note}\n`).join(""));
      process.stdout.write(`report: ${path.join(runDir, "evaluation-report.md")} (chart evaluation.svg, data evaluation.json)\n`);
    });
}

/** The run's rows (its base first) into evaluation.json, evaluation.svg and evaluation-report.md, with the lines under the table. */
async function writeReport(target: EvalTarget, base: RunBase): Promise<{ shown: VersionMetrics[]; notes: string[] }> {
  const { runDir } = target;
  const all = readEvaluations(runDir);
  const shown = runRows(all, target.run, base);
  const notes = [await stableEffectLine(runDir, shown), await firstReplyLine(runDir), ...provenance(all, shown, target.run, base)];
  writeFileSync(path.join(runDir, "evaluation.json"), `${JSON.stringify(shown, null, 2)}\n`);
  writeFileSync(path.join(runDir, "evaluation.svg"), evaluationSvg(shown));
  writeFileSync(path.join(runDir, "evaluation-report.md"), evaluationMarkdown(shown, "evaluation.svg", notes));
  return { shown, notes };
}

/**
 * The base the evaluated version pairs with: the run's own base row, or an earlier run's on the same base weights and
 * evaluation plan (handed to the running start, so that its screens show it, marked as reused). With neither, a
 * version other than 0 is preceded by the base weights' own evaluation, served as `--checkpoint base` serves them;
 * version 0 is the base itself (null: it becomes the run's base row).
 */
async function baseToPairWith(target: EvalTarget, base: RunBase | null, version: string): Promise<RunBase | null> {
  if (base?.reused) {
    process.stderr.write(`· the base is run ${base.metrics.run ?? "?"}'s evaluation of v${base.metrics.version}, reused: the same base weights (${target.basis.weights}) and evaluation plan\n`);
    if (target.start) await announceToStart(target.runDir, base.metrics);
  }
  if (base !== null || version === "0") return base;
  process.stderr.write(`· no base evaluated in ${target.run === null ? "this folder" : `run ${target.run}`} yet: evaluating the base weights (v0) first, then v${version} against them\n`);
  const serving = await planServing(target.recipe, target.runDir, "base", target.start !== null).catch((error: unknown) => {
    throw baseRefusal(target, error);
  });
  const evaluation = await evaluateCheckpoint(target, serving, null);
  await record(target, evaluation);
  return { metrics: evaluation.metrics, reused: false };
}

/** Why the base weights cannot be evaluated now, and the command that records the base once they can be served. */
function baseRefusal(target: EvalTarget, error: unknown): OpenclawRlError {
  const reason = error instanceof Error ? error.message : String(error);
  return new OpenclawRlError("EVALUATION_REFUSED", `no base is evaluated for this run yet, and the base weights cannot be served beside it now: ${reason}`, {
    path: "--checkpoint",
    cause: error,
    hint: `record the base where its weights can be served, e.g. with the start stopped: \`${cliCommand(`eval --run ${shellWord(target.runDir)} --checkpoint base`)}\` (a later run on the same base weights and evaluation plan reuses it), or set evaluation.every_versions so that start evaluates its base before training`,
  });
}

/** Appends an evaluation to the run folder (its sessions, then its metrics line) and tells the running start of a live or base row. */
async function record(target: EvalTarget, { metrics, sessions }: VersionEvaluation): Promise<void> {
  refuseUnscored(metrics, sessions);
  await appendAll(path.join(target.runDir, EVALUATION_SESSIONS_FILE), sessions.map((session) => ({ version: metrics.version, ...session })));
  await appendAll(path.join(target.runDir, EVALUATIONS_FILE), [metrics]);
  if (target.start && (metrics.served === "live" || metrics.baseVersion === null)) await announceToStart(target.runDir, metrics);
}

/** Lines under the table: where the base came from when reused, and how many rows of other runs are left out. */
function provenance(all: readonly VersionMetrics[], shown: readonly VersionMetrics[], run: string | null, base: RunBase): string[] {
  const lines = [];
  if (base.reused) lines.push(`base: run ${base.metrics.run ?? "?"}'s evaluation of the base weights, reused (the same base weights and evaluation plan)`);
  const others = all.length - shown.length;
  if (others > 0) lines.push(`${others} evaluation${others === 1 ? "" : "s"} of other runs in this folder not shown (${run === null ? "no run recorded" : `this run: ${run}`}; all in ${EVALUATIONS_FILE})`);
  return lines;
}

/** In a run with an environment, says which held-out tasks are evaluated (or that none are), and how to choose them. */
function sayWhatIsEvaluated(recipe: Recipe, set: EvaluationSet): void {
  const environment = recipe.derived.environmentName;
  if (!environment) return;
  const choose = "`--set evaluation.tasks=<tasks.jsonl>` (the environment's task format, none of them in episodes.tasks; docs/evaluation.md)";
  if (set.tasks.length > 0) {
    const which = recipe.evaluation.tasks ? `evaluation.tasks (${recipe.evaluation.tasks})` : `the tasks the ${environment} environment ships held out (${heldOutTasksFile(recipe)})`;
    return void process.stderr.write(`· held-out tasks: ${set.tasks.length} from ${which}, ${recipe.evaluation.episode_samples} episodes each in the run's environment, beside the chat personas; others: ${choose}\n`);
  }
  process.stderr.write(`· this evaluates chat conversations (the persona set) only, not the run's environment (${environment}): evaluation.tasks is not set; to evaluate held-out tasks of it, add ${choose}\n`);
}

/**
 * The running start's recipe (its recipe.resolved.yaml) with this command's --set and --method on top, so that
 * `--set evaluation.personas=FILE` and the like apply; --recipe names another base file; without a resolved
 * recipe in the run folder, the recipe the options name.
 */
function runRecipe(runDir: string, options: EvalOptions): Recipe {
  const resolved = resolvedRecipePath(runDir);
  if (options.recipe === undefined && existsSync(resolved)) return loadRecipe({ recipe: resolved, method: options.method, set: options.set }).recipe;
  return recipeFromOptions(options).recipe;
}

function judgeUrlOf(option: string | undefined, recipe: Recipe): string {
  if (option !== undefined) {
    if (!z.url({ protocol: /^https?$/ }).safeParse(option).success) throw new OpenclawRlError("RECIPE_INVALID", `--judge-url ${JSON.stringify(option)} is not an http(s) URL`, { path: "--judge-url", hint: "pass the judge engine's base URL, e.g. --judge-url http://127.0.0.1:30002" });
    return option;
  }
  const url = recipe.derived.engineUrls.judge;
  if (!url) throw new OpenclawRlError("RECIPE_INVALID", "this run's judge engine has no fixed URL (slime announces its router to the orchestrator only)", { path: "--judge-url", hint: "pass --judge-url <the judge router's base URL>" });
  return url;
}

/** An evaluation in which no session was scored measures nothing (an unreachable scorer or policy): it is not recorded, so it never becomes the run's base. */
function refuseUnscored(metrics: VersionMetrics, sessions: readonly SessionResult[]): void {
  if (metrics.sessions === 0 || metrics.scored > 0) return;
  const failure = sessions.find((session) => session.failure)?.failure ?? "no valid scorer vote";
  throw new OpenclawRlError("ENGINE_UNAVAILABLE", `no session of ${metrics.sessions} was scored (the first: ${failure}); nothing was recorded`, {
    hint: `check that the running start's proxy and the judge engine answer (\`${cliCommand("status")}\`), or pass --judge-url <a reachable judge engine>`,
    retryable: true,
  });
}

/** The version the running start serves now, through its proxy (side turns: never trained). */
async function evaluateLive(target: EvalTarget, base: RunBase | null): Promise<VersionEvaluation> {
  const live = target.start!;
  const plan = buildEvaluationPlan(target.recipe, target.set, { proxyUrl: live.proxy, apiKey: process.env[target.recipe.proxy.api_key_env] || undefined, judgeUrl: target.judgeUrl });
  const evaluation = await evaluateVersion(plan, live.version, base?.metrics ?? null);
  evaluation.metrics.versionAtEnd = (await liveVersion(target.runDir)).version;
  evaluation.metrics.served = "live";
  return withRun(target, evaluation, base);
}

function withSamples(recipe: Recipe, samples: string | undefined): Recipe {
  if (samples === undefined) return recipe;
  const count = Number(samples);
  if (!Number.isInteger(count) || count < 1 || count > 32) throw new OpenclawRlError("RECIPE_INVALID", `${JSON.stringify(samples)} is not a whole number from 1 to 32`, { path: "--samples" });
  return { ...recipe, evaluation: { ...recipe.evaluation, samples: count } };
}

async function appendAll(file: string, values: readonly unknown[]): Promise<void> {
  const lines = new JsonlAppendFile(file);
  await Promise.all(values.map((value) => lines.append(value)));
  await lines.close();
}
