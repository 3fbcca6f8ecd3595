// The launch plan of engine `slime`: placement → Ray head and workers → the slime job → the standalone judge,
// plus the custom-config file and notes on what this machine lacks. Starts nothing and writes nothing.
import { existsSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import { BRIDGE_TOKEN_ENV } from "../../contracts/bridge.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { LaunchPlan, PlanContext } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { standaloneJudgeProcess, standaloneJudgeUrl } from "../judge/judge-server.ts";
import { parserNames, resolveFamily } from "../../lib/model/model-family.ts";
import { planPlacement } from "../placement.ts";
import { checkpointIn } from "./checkpoint-folder.ts";
import { readModelArgs } from "./model-args.ts";
import { rayHeadProcess, rayWorkerProcesses, type NodeEnvironment } from "./ray-cluster.ts";
import { slimeJobProcess } from "./slime-job.ts";
import { CUSTOM_CONFIG_FILE, customConfig, insideRunDir, trainArgs } from "./train-args.ts";

export interface SlimePlanOptions {
  /** `start` needs every input present: a missing model-args file is an error instead of a note. */
  strict?: boolean;
}

export async function slimePlan(recipe: Recipe, context: PlanContext, options: SlimePlanOptions = {}): Promise<LaunchPlan> {
  const placement = planPlacement(recipe);
  const notes: string[] = [];
  const modelArgs = await megatronModelArgs(recipe, notes, options);
  checkLoadDir(recipe, context.runDir, notes, options);
  notes.push(FLAVOR_NOTE[recipe.engine.slime.flavor]);
  const environment = nodeEnvironment(recipe, context, notes);
  const family = await resolveFamily(recipe);
  const parsers = parserNames(recipe.model, family.sglang);
  notes.push(`model family ${family.family?.name ?? "unknown (parsed as Qwen3's)"} (${family.evidence}): SGLang parsers ${parsers.toolCallParser ?? "none"} (tool calls), ${parsers.reasoningParser ?? "none"} (reasoning)`);
  const processes = [
    rayHeadProcess(recipe, placement, environment),
    ...rayWorkerProcesses(recipe, placement, environment),
    slimeJobProcess(recipe, context, trainArgs({ recipe, runDir: context.runDir, modelArgs, parsers })),
  ];
  if (recipe.judge.launch === "standalone") {
    processes.push(standaloneJudgeProcess(recipe, placement));
    notes.push(`standalone judge serves at ${standaloneJudgeUrl(recipe, placement)}`);
  }
  if (recipe.judge.launch === "external" && recipe.cluster.prm_gpus > 0) {
    notes.push(`judge.launch is external, so cluster.prm_gpus (${recipe.cluster.prm_gpus}) is not used`);
  }
  if (recipe.cluster.nodes > 1) {
    notes.push(
      `multi-node: run each ray-worker-N command on node N (\`npx openclaw-rl join\`); slime's rollout manager may land on any node, so the bridge listens on the head address (${context.bridgeUrl}, bearer token per run): open its port to the other nodes`,
    );
  }
  const files = [{ path: path.join(context.runDir, CUSTOM_CONFIG_FILE), content: stringify(customConfig(recipe)) }];
  return { method: recipe.method, engine: "slime", placement, processes, files, notes };
}

const FLAVOR_NOTE = {
  fork: "engine.slime.flavor fork: the OpenClaw-RL fork's slime (Gen-Verse/OpenClaw-RL 0d034dd) with its SGLang (dce8b060)",
  upstream: "engine.slime.flavor upstream: THUDM/slime (624b824 or later) with its SGLang (0.5.15); its parser drops options it does not know instead of refusing them",
} as const;

/**
 * training.load_dir must hold a checkpoint slime resumes from: the fork asserts on a missing or empty folder and
 * otherwise loads the Hugging Face weights of model.path, ignoring the folder; upstream starts again from --ref-load
 * unless the folder is a Hugging Face checkpoint (config.json), which it loads.
 */
function checkLoadDir(recipe: Recipe, runDir: string, notes: string[], options: SlimePlanOptions): void {
  if (!recipe.training.load_dir) return;
  const folder = insideRunDir(runDir, recipe.training.load_dir);
  const state = checkpointIn(folder, recipe.derived.trainingBackend);
  if (state.kind === "loadable") return;
  if (recipe.engine.slime.flavor === "upstream" && existsSync(path.join(folder, "config.json"))) return;
  const message = `training.load_dir ${folder} holds no checkpoint slime can resume from (${state.why})`;
  const hint = "point training.load_dir at a --save folder of an earlier run (it holds latest_checkpointed_iteration.txt), or remove it to start from model.path";
  if (options.strict) throw new OpenclawRlError("RECIPE_INVALID", message, { path: "training.load_dir", hint });
  notes.push(`${message} (${hint})`);
}

async function megatronModelArgs(recipe: Recipe, notes: string[], options: SlimePlanOptions): Promise<string[]> {
  if (recipe.derived.trainingBackend !== "megatron") return [];
  const modelArgs = await readModelArgs(recipe);
  if (modelArgs.kind === "found") return modelArgs.args;
  const message = `model-args file ${modelArgs.file} not found, so MODEL_ARGS (the Megatron architecture flags) are missing from train_async.py's argv`;
  const hint = "set engine.slime.root to your slime checkout, or engine.slime.model_args to its scripts/models/<model>.sh";
  if (options.strict) throw new OpenclawRlError("RECIPE_INVALID", message, { path: "engine.slime.model_args", hint });
  notes.push(`${message} (${hint})`);
  return [];
}

/** Secrets reach slime through the environment Ray's processes inherit, never through argv. */
function nodeEnvironment(recipe: Recipe, context: PlanContext, notes: string[]): NodeEnvironment {
  const shared: Record<string, string> = { ...recipe.engine.slime.env, [BRIDGE_TOKEN_ENV]: context.bridgeToken };
  const secretKeys = [BRIDGE_TOKEN_ENV];
  if (recipe.wandb.enabled) {
    const key = context.environment[recipe.wandb.key_env];
    if (key) {
      shared.WANDB_API_KEY = key;
      secretKeys.push("WANDB_API_KEY");
    } else {
      notes.push(`wandb.enabled is true but $${recipe.wandb.key_env} is not set: W&B will not be able to log in`);
    }
  }
  return { shared, secretKeys };
}
