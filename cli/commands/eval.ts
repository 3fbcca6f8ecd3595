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
import { evaluationBasis, type EvaluationBasis } from "../../orchestrator/evaluation/evaluation-basis.ts";
import { buildEvaluationPlan, heldOutTasksFile, readEvaluationSet, type EvaluationSet } from "../../orchestrator/evaluation/evaluation-plan.ts";
import { EVALUATION_RECORDED_ROUTE } from "../../orchestrator/evaluation/evaluation-announcement.ts";
import { evaluationMarkdown, evaluationSvg, evaluationTable } from "../../orchestrator/evaluation/evaluation-report.ts";
import { stableEffectLine } from "../../orchestrator/evaluation/stable-effect.ts";
import { evaluateVersion, type VersionEvaluation } from "../../orchestrator/evaluation/version-evaluation.ts";
import { planCheckpointServing } from "../../launchers/evaluation/checkpoint-serving.ts";
import type { CheckpointServing } from "../../launchers/evaluation/served-checkpoint.ts";
import { cliCommand, shellWord } from "../../lib/cli-command.ts";
import { freeLoopbackPort, startCheckpointServer } from "../../launchers/evaluation/checkpoint-server.ts";
import { JsonlAppendFile } from "../../orchestrator/records/jsonl-append-file.ts";
import { runFolderTarget } from "../admin-target.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { loadRecipe, PACKAGE_ROOT } from "../recipe-file.ts";
import { engineEndpoints } from "./start.ts";

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
  const notes = [await stableEffectLine(runDir, shown), ...provenance(all, shown, target.run, base)];
  writeFileSync(path.join(runDir, "evaluation.json"), `${JSON.stringify(shown, null, 2)}\n`);
  writeFileSync(path.join(runDir, "evaluation.svg"), evaluationSvg(shown));
  writeFileSync(path.join(runDir, "evaluation-report.md"), evaluationMarkdown(shown, "evaluation.svg", notes));
  return { shown, notes };
}

/** What one `eval` works on: the run's recipe and held-out set, the running start (null: none, for a checkpoint), the run and its basis. */
interface EvalTarget {
  recipe: Recipe;
  runDir: string;
  set: EvaluationSet;
  judgeUrl: string;
  start: LiveStart | null;
  run: string | null;
  basis: EvaluationBasis;
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
  const environment = recipe.episodes.environment ?? recipe.episodes.env_url;
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
  const url = engineEndpoints(recipe).judge;
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

/** The run, the base's run and the basis on a new row (a row without a base is the run's base row). */
function withRun(target: EvalTarget, evaluation: VersionEvaluation, base: RunBase | null): VersionEvaluation {
  Object.assign(evaluation.metrics, { run: target.run, baseRun: base ? (base.metrics.run ?? null) : null, basis: target.basis });
  return evaluation;
}

/** `--plan`: how the checkpoint would be served, as the refusal or the server's command. */
async function checkpointPlanText(recipe: Recipe, runDir: string, checkpoint: string | undefined): Promise<string> {
  if (!checkpoint) throw new OpenclawRlError("RECIPE_INVALID", "--plan shows how a checkpoint is served: pass --checkpoint too", { path: "--plan" });
  const startRunning = await liveVersion(runDir).then(() => true, () => false);
  const serving = await planServing(recipe, runDir, checkpoint, startRunning);
  const { spec } = serving;
  return [
    `version     v${serving.version}`,
    `weights     ${serving.checkpoint ?? "the stand-in's base weights"}`,
    `cwd         ${spec.cwd}`,
    `env         ${Object.entries(spec.env).map(([key, value]) => `${key}=${value}`).join(" ") || "(none)"}`,
    `command     ${spec.argv.join(" ")}`,
    `policy      ${serving.url}/v1/chat/completions (ready: ${serving.readyUrl})`,
    "",
  ].join("\n");
}

/** The server for `checkpoint` on a free loopback port; beside a running start only its idle GPUs are free. */
async function planServing(recipe: Recipe, runDir: string, checkpoint: string, startRunning: boolean): Promise<CheckpointServing> {
  const context = { packageRoot: PACKAGE_ROOT, runDir, bridgeUrl: "", bridgeToken: "", environment: {} };
  return planCheckpointServing(recipe, { checkpoint, port: await freeLoopbackPort(), context, gpus: { startRunning } });
}

/**
 * Saved weights on a server of their own (a free loopback port), its OpenAI-compatible chat endpoint as the policy:
 * no proxy, so nothing is recorded or trained; the same plan (openers, personas, seeds, sampling) as every version.
 * Held-out episodes too where the checkpoint's server answers tool calls and the environment is up (episodesFor).
 */
async function evaluateCheckpoint(target: EvalTarget, serving: CheckpointServing, base: RunBase | null): Promise<VersionEvaluation> {
  const { recipe } = target;
  const set = { ...target.set, tasks: episodesFor(target) };
  process.stderr.write(`· serving v${serving.version} from ${serving.checkpoint ?? "the stand-in's base weights"} on ${serving.url} (${serving.spec.argv.slice(0, 4).join(" ")} …)\n`);
  const server = await startCheckpointServer(serving, serving.spec.role === "checkpoint-server" ? SGLANG_READY_MS : STANDIN_READY_MS);
  try {
    const plan = buildEvaluationPlan(recipe, set, { proxyUrl: server.url, apiKey: undefined, judgeUrl: target.judgeUrl });
    const evaluation = await evaluateVersion(plan, serving.version, base?.metrics ?? null);
    evaluation.metrics.served = "checkpoint";
    if (serving.checkpoint) evaluation.metrics.checkpoint = serving.checkpoint;
    return withRun(target, evaluation, base);
  } finally {
    await server.stop();
  }
}

/**
 * The held-out tasks a checkpoint runs: in rehearsal (whose stand-in answers tool calls) while the environment is up
 * (episodes.env_url, or the built-in one a running start supervises); else none, and said so.
 */
function episodesFor(target: EvalTarget): EvaluationSet["tasks"] {
  const { recipe, set } = target;
  if (set.tasks.length === 0) return [];
  if (recipe.engine.kind === "rehearsal" && (target.start !== null || recipe.episodes.env_url)) return set.tasks;
  const why = recipe.engine.kind === "rehearsal" ? "the built-in environment runs only beside a running start" : "the checkpoint's SGLang server is started without a tool-call parser";
  process.stderr.write(`· held-out tasks are not evaluated for this checkpoint (${why}); the personas are\n`);
  return [];
}

/** How long a checkpoint server may take to answer /health_generate: a stand-in loads a tokenizer, SGLang a model. */
const STANDIN_READY_MS = 120_000;
const SGLANG_READY_MS = 900_000;

function withSamples(recipe: Recipe, samples: string | undefined): Recipe {
  if (samples === undefined) return recipe;
  const count = Number(samples);
  if (!Number.isInteger(count) || count < 1 || count > 32) throw new OpenclawRlError("RECIPE_INVALID", `${JSON.stringify(samples)} is not a whole number from 1 to 32`, { path: "--samples" });
  return { ...recipe, evaluation: { ...recipe.evaluation, samples: count } };
}

const statusSchema = z.object({ run_id: z.string().nullable().default(null), weight_version: z.string().nullable(), endpoints: z.object({ proxy: z.string().nullable() }) });

/** The running start: its proxy, its run id and the weight version it serves now ("0" before the first update: the base weights). */
interface LiveStart {
  proxy: string;
  version: string;
  run: string | null;
}

async function liveVersion(runDir: string): Promise<LiveStart> {
  const { url, token } = runFolderTarget(runDir, NO_START_HINT);
  const response = await fetch(`${url}/status`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) }).catch((cause: unknown) => {
    throw new OpenclawRlError("ENGINE_UNAVAILABLE", `no openclaw-rl answers at ${url}`, { path: url, cause, hint: "is `openclaw-rl start` still running?", retryable: true });
  });
  const status = statusSchema.safeParse(await response.json().catch(() => null));
  if (!response.ok || !status.success || !status.data.endpoints.proxy) throw new OpenclawRlError("ENGINE_ERROR", `unexpected answer from ${url}/status (${response.status})`, { path: url });
  return { proxy: status.data.endpoints.proxy, version: status.data.weight_version ?? "0", run: status.data.run_id };
}

/** What a folder without a running start is told (the live version needs one; a checkpoint does not). */
const NO_START_HINT = `evaluate a running start: \`${cliCommand("start")}\`, then \`${cliCommand("eval --run <records.dir>")}\` (a saved checkpoint needs none: --checkpoint)`;

/**
 * Hands the running start a live version's result, so that status, status --json and the dashboard show it as they
 * show continuous evaluation's; says so when the start cannot be told (the line is in evaluations.jsonl either way).
 */
async function announceToStart(runDir: string, metrics: VersionMetrics): Promise<void> {
  const failure = await (async () => {
    const target = runFolderTarget(runDir, NO_START_HINT);
    const url = `${target.url}${EVALUATION_RECORDED_ROUTE}`;
    const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${target.token}`, "content-type": "application/json" }, body: JSON.stringify(metrics), signal: AbortSignal.timeout(5000) });
    return response.ok ? null : `${url} answered ${response.status} ${(await response.text()).slice(0, 200)}`;
  })().catch((error: unknown) => (error as Error).message);
  if (failure) process.stderr.write(`· the running start was not told of this result (${failure}): it is in evaluations.jsonl, not on status\n`);
}

async function appendAll(file: string, values: readonly unknown[]): Promise<void> {
  const lines = new JsonlAppendFile(file);
  await Promise.all(values.map((value) => lines.append(value)));
  await lines.close();
}
