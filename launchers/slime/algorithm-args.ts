// train_async.py flags that depend on the method and the backend: advantage estimator and loss, KL and clipping,
// optimizer, trainer parallelism / memory, LoRA. Ignores cluster sizes, checkpoints, SGLang and the judge.
import type { Recipe } from "../../contracts/recipe.ts";

/** Loss functions of native/openclaw_rl that slime imports by dotted path (fixed names). */
export const COMBINE_LOSS_PATH = "openclaw_rl.losses.combine_loss_function";
export const TOPK_LOSS_PATH = "openclaw_rl.losses.topk_distillation_loss_function";
export const POLICY_LOSS_PATH = "openclaw_rl.losses.policy_loss_function";
export const HYBRID_LOSS_PATH = "openclaw_rl.losses.hybrid_loss_function";

export function algorithmArgs(recipe: Recipe): string[] {
  const training = recipe.training;
  const kl = training.use_kl_loss ? ["--use-kl-loss", "--kl-loss-coef", String(training.kl_coef), "--kl-loss-type", training.kl_loss_type] : [];
  const clip = ["--entropy-coef", String(training.entropy_coef), "--eps-clip", String(training.eps_clip), "--eps-clip-high", String(training.eps_clip_high)];
  const tis = mismatchArgs(recipe);
  switch (recipe.method) {
    case "binary":
      return ["--advantage-estimator", stepWise(recipe) ? "step_wise" : "grpo", "--disable-rewards-normalization", ...truePolicyEntropy(recipe), ...kl, ...clip, ...tis];
    case "combine":
      return ["--advantage-estimator", "grpo", "--disable-rewards-normalization", "--loss-type", "custom_loss", "--custom-loss-function-path", COMBINE_LOSS_PATH, ...kl, ...clip, ...tis];
    case "hybrid":
      // The reference's launcher flags for its hybrid, without its slime's own (--distill-topk, --distill-subset-mode,
      // --hint-m, --hint-selection): K, the subset and the selection reach our loss through the custom config. No TIS:
      // the reference's hybrid loss has no importance weights.
      return ["--advantage-estimator", "grpo", "--disable-rewards-normalization", "--loss-type", "custom_loss", "--custom-loss-function-path", HYBRID_LOSS_PATH, ...kl, ...clip];
    case "opd":
      if (recipe.opd.topk > 0) {
        // The reference omits --disable-rewards-normalization here, so GRPO's constant-group drop discards samples.
        // No KL flags: with --disable-compute-advantages-and-returns slime computes no reference log-probs, and the
        // top-K loss has no KL term, so --use-kl-loss would only load a reference model for nothing (the recipe
        // refuses training.kl_coef > 0 here).
        return ["--loss-type", "custom_loss", "--custom-loss-function-path", TOPK_LOSS_PATH, "--disable-compute-advantages-and-returns", "--disable-rewards-normalization", ...clip];
      }
      return [...tokenLevelDistillationArgs(recipe), ...truePolicyEntropy(recipe), ...kl, ...clip, ...tis];
  }
}

/**
 * Truncated importance sampling against the train/inference mismatch (training.mismatch_correction): both flavours'
 * policy loss weighs each token by clamp(exp(old − rollout), tis_clip_low, tis_clip) under --use-tis (where:
 * native/tests/fixtures/slime_citations.json), and our combine loss does the same. The top-K
 * loss has no importance ratio and the FSDP backend no TIS: none is asked of them.
 */
function mismatchArgs(recipe: Recipe): string[] {
  const training = recipe.training;
  if (training.mismatch_correction !== "tis" || recipe.derived.trainingBackend !== "megatron") return [];
  return ["--use-tis", "--tis-clip", String(training.tis_clip), "--tis-clip-low", String(training.tis_clip_low)];
}

/**
 * slime's own policy loss, through openclaw_rl.losses.policy_loss_function, which calls it unchanged and reports the
 * policy's true entropy beside it: on the fork slime's entropy_loss is the entropy of the softmax Megatron's cross
 * entropy wrote into the logits (docs/native.md). Upstream's is right, and the FSDP backend sends no step metrics.
 */
function truePolicyEntropy(recipe: Recipe): string[] {
  if (recipe.engine.slime.flavor !== "fork" || recipe.derived.trainingBackend !== "megatron") return [];
  return ["--loss-type", "custom_loss", "--custom-loss-function-path", POLICY_LOSS_PATH];
}

/**
 * Episodes on the fork go through its own step-wise path (slime/ray/rollout.py _post_process_step_wise_rewards,
 * megatron_utils/loss.py's step_wise branch): each sample's metadata.step_wise (native/openclaw_rl/rollout.py) holds
 * one step whose value is the advantage the orchestrator standardised over the whole task group, so rewards
 * normalisation stays off. Upstream has no step_wise estimator: GRPO without normalisation trains the same value.
 */
function stepWise(recipe: Recipe): boolean {
  return recipe.engine.slime.flavor === "fork" && recipe.derived.episodesOn;
}

/**
 * Token-level OPD: advantage = teacher − old log-prob at each response token. The fork has it as an estimator;
 * upstream makes OPD a term on top of one (--use-opd, teacher log-probs from each Sample), and GRPO over our
 * one-sample groups returns exactly 0, so the advantage is the fork's; its std division stays off (NaN for one
 * sample). Each flavour's lines: native/tests/fixtures/slime_actor.json, facts.
 */
function tokenLevelDistillationArgs(recipe: Recipe): string[] {
  if (recipe.engine.slime.flavor === "fork") return ["--advantage-estimator", "on_policy_distillation"];
  return ["--advantage-estimator", "grpo", "--disable-grpo-std-normalization", "--use-opd", "--opd-type", "sglang", "--opd-kl-coef", "1"];
}

export function optimizerArgs(recipe: Recipe): string[] {
  const args = ["--optimizer", "adam", "--lr", formatRate(recipe.training.lr), "--lr-decay-style", "constant", "--weight-decay", "0.1", "--adam-beta1", "0.9", "--adam-beta2", "0.98"];
  if (recipe.derived.trainingBackend === "megatron" && recipe.training.optimizer_cpu_offload) {
    args.push("--optimizer-cpu-offload", "--overlap-cpu-optimizer-d2h-h2d", "--use-precision-aware-optimizer");
  }
  return args;
}

/** Trainer parallelism, recomputation and batch sizing; Megatron's precision flags (the reference's MISC_ARGS). */
export function performanceArgs(recipe: Recipe): string[] {
  const cluster = recipe.cluster;
  if (recipe.derived.trainingBackend === "fsdp") {
    return ["--use-dynamic-batch-size", "--max-tokens-per-gpu", String(recipe.derived.maxTokensPerGpu), "--gradient-checkpointing"];
  }
  return [
    "--tensor-model-parallel-size", String(cluster.actor_tp),
    ...(cluster.actor_tp > 1 ? ["--sequence-parallel"] : []),
    "--pipeline-model-parallel-size", String(cluster.actor_pp),
    "--context-parallel-size", String(cluster.actor_cp),
    "--expert-model-parallel-size", "1",
    "--expert-tensor-parallel-size", "1",
    "--recompute-granularity", "full",
    "--recompute-method", "uniform",
    "--recompute-num-layers", "1",
    "--use-dynamic-batch-size",
    "--max-tokens-per-gpu", String(recipe.derived.maxTokensPerGpu),
    "--log-probs-chunk-size", "1024",
    "--attention-dropout", "0.0",
    "--hidden-dropout", "0.0",
    "--accumulate-allreduce-grads-in-fp32",
    "--attention-softmax-in-fp32",
    "--attention-backend", "flash",
  ];
}

export function loraArgs(recipe: Recipe): string[] {
  const lora = recipe.training.lora;
  if (!lora) return [];
  return ["--use-lora", "--lora-rank", String(lora.rank), "--lora-alpha", String(lora.alpha), "--lora-target-modules", lora.targets.join(",")];
}


/** 1e-5, not 0.00001: the learning rate as the reference scripts write it (slime parses either). */
function formatRate(value: number): string {
  return value < 1e-3 ? value.toExponential() : String(value);
}
