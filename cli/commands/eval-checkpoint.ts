// How `openclaw-rl eval` evaluates saved weights: the server `--checkpoint` names (launchers/evaluation/), started on a
// free loopback port for one evaluation, its chat endpoint as the policy; and `--plan`, which prints that server only.
import type { Recipe } from "../../contracts/recipe.ts";
import { planCheckpointServing } from "../../launchers/evaluation/checkpoint-serving.ts";
import { freeLoopbackPort, startCheckpointServer } from "../../launchers/evaluation/checkpoint-server.ts";
import type { CheckpointServing } from "../../launchers/evaluation/served-checkpoint.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { RunBase } from "../../orchestrator/evaluation/evaluation-history.ts";
import { buildEvaluationPlan, type EvaluationSet } from "../../orchestrator/evaluation/evaluation-plan.ts";
import { evaluateVersion, type VersionEvaluation } from "../../orchestrator/evaluation/version-evaluation.ts";
import { PACKAGE_ROOT } from "../recipe-file.ts";
import { liveVersion, withRun, type EvalTarget } from "./eval-target.ts";

/** `--plan`: how the checkpoint would be served, as the refusal or the server's command. */
export async function checkpointPlanText(recipe: Recipe, runDir: string, checkpoint: string | undefined): Promise<string> {
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
export async function planServing(recipe: Recipe, runDir: string, checkpoint: string, startRunning: boolean): Promise<CheckpointServing> {
  const context = { packageRoot: PACKAGE_ROOT, runDir, bridgeUrl: "", bridgeToken: "", environment: {} };
  return planCheckpointServing(recipe, { checkpoint, port: await freeLoopbackPort(), context, gpus: { startRunning } });
}

/**
 * Saved weights on a server of their own (a free loopback port), its OpenAI-compatible chat endpoint as the policy:
 * no proxy, so nothing is recorded or trained; the same plan (openers, personas, seeds, sampling) as every version.
 * Held-out episodes too where the checkpoint's server answers tool calls and the environment is up (episodesFor).
 */
export async function evaluateCheckpoint(target: EvalTarget, serving: CheckpointServing, base: RunBase | null): Promise<VersionEvaluation> {
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
