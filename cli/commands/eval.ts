// `openclaw-rl eval [--run DIR] [--checkpoint C] [--judge-url URL] [--samples N] [--json]`: evaluates the version a
// running start serves now (its base when no weight update came yet), or a saved checkpoint served by a server of its
// own (launchers/evaluation/checkpoint-serving.ts), on the held-out personas, paired against the run's base, and
// writes evaluations.jsonl, evaluation.json, evaluation-report.md and evaluation.svg into the run folder.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { SessionResult, VersionMetrics } from "../../contracts/evaluation.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { resolvedRecipePath } from "../../launchers/resolved-recipe.ts";
import { EVALUATION_SESSIONS_FILE, EVALUATIONS_FILE } from "../../orchestrator/evaluation/continuous-evaluation.ts";
import { baseOf, readEvaluations } from "../../orchestrator/evaluation/evaluation-history.ts";
import { buildEvaluationPlan, readEvaluationSet, type EvaluationSet } from "../../orchestrator/evaluation/evaluation-plan.ts";
import { EVALUATION_RECORDED_ROUTE } from "../../orchestrator/evaluation/evaluation-announcement.ts";
import { evaluationMarkdown, evaluationSvg, evaluationTable } from "../../orchestrator/evaluation/evaluation-report.ts";
import { stableEffectLine } from "../../orchestrator/evaluation/stable-effect.ts";
import { evaluateVersion, type VersionEvaluation } from "../../orchestrator/evaluation/version-evaluation.ts";
import { planCheckpointServing } from "../../launchers/evaluation/checkpoint-serving.ts";
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
    .description("Evaluate a weight version (the live one of a running start, or a saved checkpoint) on the held-out personas, paired against the run's base")
    .option("--run <dir>", "run folder of the running start (default: records.dir of the recipe)")
    .option("--judge-url <url>", "the scorer's (and by default the simulator's) engine; default: the run's judge engine")
    .option("--samples <n>", "sessions per opener (default: evaluation.samples)")
    .option("--checkpoint <which>", "evaluate saved weights on a server of their own: rehearsal vN | base | policy-vN.json; slime N | iter_NNNNNNN (converted first with convert-checkpoint)")
    .option("--plan", "with --checkpoint: print the server that would serve it (command, GPUs, URL) and run nothing")
    .option("--json", "print this version's metrics as JSON")
    .action(async (options: EvalOptions) => {
      const runDir = path.resolve(options.run ?? recipeFromOptions(options).recipe.records.dir);
      const recipe = withSamples(runRecipe(runDir, options), options.samples);
      if (options.plan) return void process.stdout.write(await checkpointPlanText(recipe, runDir, options.checkpoint));
      const judgeUrl = judgeUrlOf(options.judgeUrl, recipe);
      const set = await readEvaluationSet(recipe);
      const earlier = baseOf(readEvaluations(runDir));
      const { metrics, sessions } = options.checkpoint
        ? await evaluateCheckpoint(recipe, runDir, options.checkpoint, set, judgeUrl, earlier)
        : await evaluateLive(recipe, runDir, set, judgeUrl, earlier);
      refuseUnscored(metrics, sessions);
      await appendAll(path.join(runDir, EVALUATION_SESSIONS_FILE), sessions.map((session) => ({ version: metrics.version, ...session })));
      await appendAll(path.join(runDir, EVALUATIONS_FILE), [metrics]);
      if (metrics.served === "live") await announceToStart(runDir, metrics);
      const all = readEvaluations(runDir);
      writeFileSync(path.join(runDir, "evaluation.json"), `${JSON.stringify(all, null, 2)}\n`);
      writeFileSync(path.join(runDir, "evaluation.svg"), evaluationSvg(all));
      const stable = await stableEffectLine(runDir, all);
      writeFileSync(path.join(runDir, "evaluation-report.md"), evaluationMarkdown(all, "evaluation.svg", [stable]));
      if (options.json) return void process.stdout.write(`${JSON.stringify(metrics, null, 2)}\n`);
      process.stdout.write(evaluationTable(all));
      process.stdout.write(`${stable}\n`);
      process.stdout.write(`report: ${path.join(runDir, "evaluation-report.md")} (chart evaluation.svg, data evaluation.json)\n`);
    });
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
    hint: "check that the running start's proxy and the judge engine answer (`openclaw-rl status`), or pass --judge-url <a reachable judge engine>",
    retryable: true,
  });
}

/** The version the running start serves now, through its proxy (side turns: never trained). */
async function evaluateLive(recipe: Recipe, runDir: string, set: EvaluationSet, judgeUrl: string, earlier: VersionMetrics | null): Promise<VersionEvaluation> {
  const live = await liveVersion(runDir);
  const plan = buildEvaluationPlan(recipe, set, { proxyUrl: live.proxy, apiKey: process.env[recipe.proxy.api_key_env] || undefined, judgeUrl });
  const evaluation = await evaluateVersion(plan, live.version, earlier && earlier.version !== live.version ? earlier : null);
  evaluation.metrics.versionAtEnd = (await liveVersion(runDir)).version;
  evaluation.metrics.served = "live";
  return evaluation;
}

/**
 * Saved weights on a server of their own (a free loopback port), its OpenAI-compatible chat endpoint as the policy:
 * no proxy, so nothing is recorded or trained; the same plan (openers, personas, seeds, sampling) as every version.
 * Held-out episodes need the proxy's episode routes: left out, and said so.
 */
/** `--plan`: how the checkpoint would be served, as the refusal or the server's command. */
async function checkpointPlanText(recipe: Recipe, runDir: string, checkpoint: string | undefined): Promise<string> {
  if (!checkpoint) throw new OpenclawRlError("RECIPE_INVALID", "--plan shows how a checkpoint is served: pass --checkpoint too", { path: "--plan" });
  const serving = await planServing(recipe, runDir, checkpoint);
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
async function planServing(recipe: Recipe, runDir: string, checkpoint: string) {
  const startRunning = await liveVersion(runDir).then(() => true, () => false);
  const context = { packageRoot: PACKAGE_ROOT, runDir, bridgeUrl: "", bridgeToken: "", environment: {} };
  return planCheckpointServing(recipe, { checkpoint, port: await freeLoopbackPort(), context, gpus: { startRunning } });
}

async function evaluateCheckpoint(recipe: Recipe, runDir: string, checkpoint: string, set: EvaluationSet, judgeUrl: string, earlier: VersionMetrics | null): Promise<VersionEvaluation> {
  if (set.tasks.length > 0) process.stderr.write("· held-out tasks (evaluation.tasks) are not evaluated for a checkpoint: episodes run through the proxy's /v1/episodes routes, which only a running start has; the personas are\n");
  const serving = await planServing(recipe, runDir, checkpoint);
  process.stderr.write(`· serving v${serving.version} from ${serving.checkpoint ?? "the stand-in's base weights"} on ${serving.url} (${serving.spec.argv.slice(0, 4).join(" ")} …)\n`);
  const server = await startCheckpointServer(serving, serving.spec.role === "checkpoint-server" ? SGLANG_READY_MS : STANDIN_READY_MS);
  try {
    const plan = buildEvaluationPlan(recipe, { ...set, tasks: [] }, { proxyUrl: server.url, apiKey: undefined, judgeUrl });
    const evaluation = await evaluateVersion(plan, serving.version, earlier && earlier.version !== serving.version ? earlier : null);
    evaluation.metrics.served = "checkpoint";
    if (serving.checkpoint) evaluation.metrics.checkpoint = serving.checkpoint;
    return evaluation;
  } finally {
    await server.stop();
  }
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

const statusSchema = z.object({ weight_version: z.string().nullable(), endpoints: z.object({ proxy: z.string().nullable() }) });

/** The running start's proxy and the weight version it serves now ("0" before the first update: the base). */
async function liveVersion(runDir: string): Promise<{ proxy: string; version: string }> {
  const { url, token } = runFolderTarget(runDir, NO_START_HINT);
  const response = await fetch(`${url}/status`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) }).catch((cause: unknown) => {
    throw new OpenclawRlError("ENGINE_UNAVAILABLE", `no openclaw-rl answers at ${url}`, { path: url, cause, hint: "is `openclaw-rl start` still running?", retryable: true });
  });
  const status = statusSchema.safeParse(await response.json().catch(() => null));
  if (!response.ok || !status.success || !status.data.endpoints.proxy) throw new OpenclawRlError("ENGINE_ERROR", `unexpected answer from ${url}/status (${response.status})`, { path: url });
  return { proxy: status.data.endpoints.proxy, version: status.data.weight_version ?? "0" };
}

/** What a folder without a running start is told (the live version needs one; a checkpoint does not). */
const NO_START_HINT = "evaluate a running start: `openclaw-rl start`, then `openclaw-rl eval --run <records.dir>`";

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
