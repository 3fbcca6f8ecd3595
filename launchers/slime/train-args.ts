// The exact argv of slime's train_async.py for a recipe, in the reference scripts' order: cluster, model,
// checkpoints, rollout, optimizer, algorithm, perf, SGLang, W&B, our Python hooks, judge, LoRA, extras.
import path from "node:path";
import type { Recipe } from "../../contracts/recipe.ts";
import { parserNames } from "../../lib/model/model-family.ts";
import { actorLayout, gpuSlices } from "../placement.ts";
import { algorithmArgs, loraArgs, optimizerArgs, performanceArgs } from "./algorithm-args.ts";

/** Python entry points of native/openclaw_rl that slime imports by dotted path (fixed names). */
export const ROLLOUT_FUNCTION_PATH = "openclaw_rl.rollout.generate_rollout";
export const GENERATE_SHIM_PATH = "openclaw_rl.shims.generate";
export const REWARD_SHIM_PATH = "openclaw_rl.shims.reward";
/**
 * Megatron only, slime's --custom-megatron-init-path (native/openclaw_rl/trainer_hooks.py): wraps slime's per-step
 * metrics log so each step's numbers also reach the bridge, and with opd.teacher trainer runs the teacher's forward
 * in the trainer (slime_teacher.py).
 */
export const TRAINER_HOOKS_PATH = "openclaw_rl.trainer_hooks.install";

/** Slime sets every key of this YAML as an attribute of args (--custom-config-path). */
export const CUSTOM_CONFIG_FILE = "slime-custom-config.yaml";

export interface TrainArgsInput {
  recipe: Recipe;
  runDir: string;
  /** MODEL_ARGS already read from the model-args file (empty for FSDP, or when the file is missing). */
  modelArgs: string[];
  /** SGLang's parser names for the policy's family (lib/model/model-family.ts parserNames); default: the recipe's with Qwen3's family. */
  parsers?: { toolCallParser: string | null; reasoningParser: string | null };
}

export function trainArgs({ recipe, runDir, modelArgs, parsers = parserNames(recipe.model, null) }: TrainArgsInput): string[] {
  return [
    ...clusterArgs(recipe),
    ...modelArgs,
    ...checkpointArgs(recipe, runDir),
    ...rolloutArgs(recipe),
    ...optimizerArgs(recipe),
    ...algorithmArgs(recipe),
    ...performanceArgs(recipe),
    ...sglangArgs(recipe, parsers),
    ...wandbArgs(recipe),
    "--custom-generate-function-path", GENERATE_SHIM_PATH,
    "--custom-rm-path", REWARD_SHIM_PATH,
    "--custom-config-path", path.join(runDir, CUSTOM_CONFIG_FILE),
    ...(recipe.derived.trainingBackend === "megatron" ? ["--custom-megatron-init-path", TRAINER_HOOKS_PATH] : []),
    ...judgeArgs(recipe),
    ...loraArgs(recipe),
    ...recipe.engine.slime.extra_args,
  ];
}

/**
 * Keys slime copies onto args for our losses and trainer hooks (one source: the recipe): combine weights, top-K and
 * where the teacher runs; for the hybrid its own weights, selection, subset, K and clip.
 */
export function customConfig(recipe: Recipe): Record<string, number | string> {
  if (recipe.method === "hybrid") {
    const hybrid = recipe.hybrid;
    return {
      openclaw_rl_w_rl: hybrid.w_rl,
      openclaw_rl_w_opd: hybrid.w_opd,
      openclaw_rl_hybrid_selection: hybrid.selection,
      openclaw_rl_hybrid_subset: hybrid.subset,
      openclaw_rl_hybrid_topk: hybrid.topk,
      openclaw_rl_hybrid_clip: hybrid.clip,
      openclaw_rl_teacher: recipe.derived.teacher,
    };
  }
  return { openclaw_rl_w_rl: recipe.combine.w_rl, openclaw_rl_w_opd: recipe.combine.w_opd, openclaw_rl_topk: recipe.opd.topk, openclaw_rl_teacher: recipe.derived.teacher };
}

/** A relative recipe path (training.save_dir, load_dir) lives inside the run folder. */
export function insideRunDir(runDir: string, folder: string): string {
  return path.resolve(runDir, folder);
}

function clusterArgs(recipe: Recipe): string[] {
  const actor = actorLayout(recipe);
  const backend = recipe.derived.trainingBackend === "fsdp" ? ["--train-backend", "fsdp"] : [];
  return [
    ...backend,
    "--actor-num-nodes", String(actor.numNodes),
    "--actor-num-gpus-per-node", String(actor.gpusPerNode),
    "--rollout-num-gpus", String(gpuSlices(recipe).rollout),
    "--num-gpus-per-node", String(recipe.cluster.gpus_per_node),
  ];
}

function checkpointArgs(recipe: Recipe, runDir: string): string[] {
  const training = recipe.training;
  // The fork converts Megatron weights for SGLang through Megatron-Bridge and loads the Hugging Face checkpoint with it;
  // upstream has no --megatron-to-hf-mode (it loads Hugging Face weights itself) and would drop the option silently.
  const bridge = recipe.derived.trainingBackend === "megatron" && recipe.engine.slime.flavor === "fork" ? ["--megatron-to-hf-mode", "bridge"] : [];
  const load = training.load_dir ? ["--load", insideRunDir(runDir, training.load_dir)] : [];
  return [
    ...bridge,
    "--hf-checkpoint", recipe.model.path,
    "--ref-load", recipe.derived.referenceModelPath,
    ...load,
    "--save", insideRunDir(runDir, training.save_dir),
    "--save-interval", String(training.save_interval),
  ];
}

function rolloutArgs(recipe: Recipe): string[] {
  return [
    "--disable-rollout-global-dataset",
    "--rollout-function-path", ROLLOUT_FUNCTION_PATH,
    "--num-rollout", "100000000",
    "--rollout-batch-size", String(recipe.training.batch_size),
    "--n-samples-per-prompt", "1",
    "--rollout-max-response-len", String(recipe.model.max_response_tokens),
    "--rollout-max-context-len", String(recipe.model.context_length),
    "--rollout-temperature", String(recipe.sampling.temperature),
    "--reward-key", "score",
    "--num-steps-per-rollout", "1",
    // a partial batch (training.max_wait_s) is one step over what came; only the fork's Megatron has it (the recipe refuses the rest)
    ...(recipe.training.max_wait_s > 0 ? ["--use-dynamic-global-batch-size"] : []),
  ];
}

/**
 * SGLang's flags. Parser names come from the policy's family (both flavours' SGLang register every family's names,
 * tests/fixtures/sglang-parsers.json; Qwen 2.5's `<tool_call>{json}</tool_call>` detector is "qwen", the old "qwen25"
 * a deprecated alias of it).
 */
function sglangArgs(recipe: Recipe, parsers: { toolCallParser: string | null; reasoningParser: string | null }): string[] {
  const model = recipe.model;
  return [
    "--rollout-num-gpus-per-engine", String(recipe.cluster.rollout_tp),
    ...(parsers.toolCallParser === null ? [] : ["--sglang-tool-call-parser", parsers.toolCallParser]),
    "--sglang-mem-fraction-static", String(recipe.engine.slime.mem_fraction_static),
    "--sglang-context-length", String(model.context_length),
    ...(parsers.reasoningParser === null ? [] : ["--sglang-reasoning-parser", parsers.reasoningParser]),
    ...(recipe.engine.slime.stream_output_flag === "none" ? [] : [recipe.engine.slime.stream_output_flag]),
  ];
}

/** The key travels in the environment (wandb reads WANDB_API_KEY), never here. */
function wandbArgs(recipe: Recipe): string[] {
  const wandb = recipe.wandb;
  if (!wandb.enabled) return [];
  return ["--use-wandb", "--wandb-project", wandb.project, "--wandb-group", wandb.group ?? `${recipe.model.served_name}-${recipe.method}`];
}

/** slime's PRM engines (the OpenClaw-RL fork): only when slime launches the judge. */
function judgeArgs(recipe: Recipe): string[] {
  if (recipe.judge.launch !== "slime") return [];
  const judge = recipe.judge;
  return [
    "--prm-enable",
    "--prm-num-gpus", String(gpuSlices(recipe).prm),
    "--prm-num-gpus-per-engine", String(recipe.cluster.prm_tp),
    "--prm-model-path", recipe.derived.judgePath,
    "--prm-m", String(judge.votes),
    "--prm-temperature", String(judge.temperature),
    "--prm-max-new-tokens", String(judge.max_new_tokens),
  ];
}
