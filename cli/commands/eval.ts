// `openclaw-rl eval [--run DIR] [--judge-url URL] [--samples N] [--json]`: evaluates the version a running start
// serves now (its base when no weight update came yet) on the held-out personas, paired against the run's base, and
// writes evaluations.jsonl, evaluation.json, evaluation-report.md and evaluation.svg into the run folder.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { SessionResult, VersionMetrics } from "../../contracts/evaluation.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { resolvedRecipePath } from "../../launchers/resolved-recipe.ts";
import { EVALUATION_SESSIONS_FILE, EVALUATIONS_FILE } from "../../orchestrator/evaluation/continuous-evaluation.ts";
import { baseOf, readEvaluations } from "../../orchestrator/evaluation/evaluation-history.ts";
import { buildEvaluationPlan, readEvaluationSet, refuseCheckpointEvaluation } from "../../orchestrator/evaluation/evaluation-plan.ts";
import { evaluationMarkdown, evaluationSvg, evaluationTable } from "../../orchestrator/evaluation/evaluation-report.ts";
import { stableEffectLine } from "../../orchestrator/evaluation/stable-effect.ts";
import { evaluateVersion } from "../../orchestrator/evaluation/version-evaluation.ts";
import { JsonlAppendFile } from "../../orchestrator/records/jsonl-append-file.ts";
import { ADMIN_ENDPOINT_FILE, readAdminToken } from "../../orchestrator/status/admin-token.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { loadRecipe } from "../recipe-file.ts";
import { engineEndpoints } from "./start.ts";

interface EvalOptions extends CommonOptions {
  run?: string;
  judgeUrl?: string;
  samples?: string;
  checkpoint?: string;
  json?: boolean;
}

export function registerEvalCommand(program: Command): void {
  withRecipeOptions(program.command("eval"))
    .description("Evaluate the live served weight version of a running start on the held-out personas, paired against the run's base")
    .option("--run <dir>", "run folder of the running start (default: records.dir of the recipe)")
    .option("--judge-url <url>", "the scorer's (and by default the simulator's) engine; default: the run's judge engine")
    .option("--samples <n>", "sessions per opener (default: evaluation.samples)")
    .option("--checkpoint <dir>", "a saved checkpoint to evaluate (refused: not yet)")
    .option("--json", "print this version's metrics as JSON")
    .action(async (options: EvalOptions) => {
      if (options.checkpoint) refuseCheckpointEvaluation(options.checkpoint);
      const runDir = path.resolve(options.run ?? recipeFromOptions(options).recipe.records.dir);
      const recipe = withSamples(runRecipe(runDir, options), options.samples);
      const judgeUrl = judgeUrlOf(options.judgeUrl, recipe);
      const evaluationSet = await readEvaluationSet(recipe);
      const live = await liveVersion(runDir);
      const plan = buildEvaluationPlan(recipe, evaluationSet, { proxyUrl: live.proxy, apiKey: process.env[recipe.proxy.api_key_env] || undefined, judgeUrl });
      const earlier = baseOf(readEvaluations(runDir));
      const { metrics, sessions } = await evaluateVersion(plan, live.version, earlier && earlier.version !== live.version ? earlier : null);
      refuseUnscored(metrics, sessions);
      metrics.versionAtEnd = (await liveVersion(runDir)).version;
      await appendAll(path.join(runDir, EVALUATION_SESSIONS_FILE), sessions.map((session) => ({ version: metrics.version, ...session })));
      await appendAll(path.join(runDir, EVALUATIONS_FILE), [metrics]);
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

function withSamples(recipe: Recipe, samples: string | undefined): Recipe {
  if (samples === undefined) return recipe;
  const count = Number(samples);
  if (!Number.isInteger(count) || count < 1 || count > 32) throw new OpenclawRlError("RECIPE_INVALID", `--samples ${samples} is not a whole number from 1 to 32`, { path: "--samples" });
  return { ...recipe, evaluation: { ...recipe.evaluation, samples: count } };
}

const statusSchema = z.object({ weight_version: z.string().nullable(), endpoints: z.object({ proxy: z.string().nullable() }) });

/** The running start's proxy and the weight version it serves now ("0" before the first update: the base). */
async function liveVersion(runDir: string): Promise<{ proxy: string; version: string }> {
  const endpointFile = path.join(runDir, ADMIN_ENDPOINT_FILE);
  const endpoint = existsSync(endpointFile) ? z.object({ url: z.string().url() }).safeParse(JSON.parse(readFileSync(endpointFile, "utf8"))) : null;
  if (!endpoint?.success) throw new OpenclawRlError("RECIPE_NOT_FOUND", `no running openclaw-rl recorded in ${runDir} (${ADMIN_ENDPOINT_FILE} missing)`, { path: runDir, hint: "evaluate a running start: `openclaw-rl start`, then `openclaw-rl eval --run <records.dir>`" });
  const response = await fetch(`${endpoint.data.url}/status`, { headers: { authorization: `Bearer ${readAdminToken(runDir)}` }, signal: AbortSignal.timeout(5000) }).catch((cause: unknown) => {
    throw new OpenclawRlError("ENGINE_UNAVAILABLE", `no openclaw-rl answers at ${endpoint.data.url}`, { path: endpoint.data.url, cause, hint: "is `openclaw-rl start` still running?", retryable: true });
  });
  const status = statusSchema.safeParse(await response.json().catch(() => null));
  if (!response.ok || !status.success || !status.data.endpoints.proxy) throw new OpenclawRlError("ENGINE_ERROR", `unexpected answer from ${endpoint.data.url}/status (${response.status})`, { path: endpoint.data.url });
  return { proxy: status.data.endpoints.proxy, version: status.data.weight_version ?? "0" };
}

async function appendAll(file: string, values: readonly unknown[]): Promise<void> {
  const lines = new JsonlAppendFile(file);
  await Promise.all(values.map((value) => lines.append(value)));
  await lines.close();
}
