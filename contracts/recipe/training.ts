// The recipe's `training` section: the trainer's optimisation, loss, checkpoint and batching keys. Ignores the method's own
// sections (combine, opd, hybrid); its nested sections live in fair-batch.ts and sample-gate.ts.
import { z } from "zod";
import { fairBatchSchema } from "./fair-batch.ts";
import { sampleGateSchema } from "./sample-gate.ts";
import { positiveInt } from "./scalars.ts";

export const loraSchema = z
  .object({
    rank: positiveInt.default(16).describe("LoRA rank."),
    alpha: positiveInt.default(32).describe("LoRA alpha."),
    targets: z
      .array(z.string())
      .default(["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
      .describe("Modules that get adapters."),
  })
  .strict();

export const trainingSchema = z
  .object({
    batch_size: positiveInt
      .default(16)
      .describe(
        "Samples per optimizer step, 16 as the reference (--rollout-batch-size with --num-steps-per-rollout 1: slime's global batch is this, so every sample is in exactly one step at any size). Smaller trains sooner, at a noisier step for the same training.lr and more steps and weight syncs per sample. A multiple of the trainer's data-parallel size. docs/judging.md.",
      ),
    lr: z.number().positive().default(1e-5).describe("Adam learning rate."),
    eps_clip: z.number().positive().default(0.2).describe("PPO clip epsilon (low side)."),
    eps_clip_high: z.number().positive().default(0.28).describe("PPO clip epsilon (high side)."),
    mismatch_correction: z
      .enum(["tis", "none"])
      .default("tis")
      .describe(
        "Correction of the train/inference mismatch (SGLang and Megatron compute slightly different log-probs for the same token). tis: truncated importance sampling (slime's --use-tis; our combine loss too), each token's policy loss weighed by min(exp(old − rollout), training.tis_clip); none: no weights. Status shows the mismatch per batch either way. Not applied by the top-K, hybrid or FSDP (training.lora) losses.",
      ),
    tis_clip: z.number().positive().default(2.0).describe("Upper clip C of the truncated importance weights (--tis-clip; slime's default 2)."),
    tis_clip_low: z.number().min(0).default(0.0).describe("Lower clip of the truncated importance weights (--tis-clip-low; slime's default 0)."),
    kl_coef: z
      .number()
      .min(0)
      .default(0.0)
      .describe("KL loss coefficient against the reference model (0.0 in the reference scripts, 0.02 in the paper). Must be 0 with opd.topk > 0 (the top-K loss has no KL term)."),
    kl_loss_type: z.enum(["k1", "k2", "k3", "low_var_kl"]).default("low_var_kl").describe("KL estimator."),
    use_kl_loss: z
      .boolean()
      .default(true)
      .describe(
        "Load a reference model and add the KL loss term (--use-kl-loss; the reference scripts set it with coefficient 0.0, except top-K OPD). Ignored with opd.topk > 0: the top-K loss has no KL term, so no reference model is loaded.",
      ),
    entropy_coef: z.number().min(0).default(0.0).describe("Entropy bonus coefficient."),
    max_staleness: z
      .number()
      .int()
      .min(0)
      .default(2)
      .describe("Samples whose oldest token is more than this many weight versions behind the current policy are not delivered (counted as stale)."),
    backend: z.enum(["megatron", "fsdp"]).optional().describe("Trainer backend; defaults to megatron, fsdp when training.lora is set."),
    lora: loraSchema.optional().describe("Train LoRA adapters instead of full weights."),
    save_dir: z.string().default("checkpoints").describe("Checkpoint folder (--save); relative paths are inside records.dir."),
    save_interval: positiveInt
      .default(5)
      .describe(
        "Save a checkpoint every N training steps (--save-interval): slime saves after step N, 2N, … (rollout_id + 1 divisible by N) and after the last rollout, and can do nothing else (no first-save or wall-time option), so N is also when the first checkpoint comes. The reference's 100 left runs ~20 weight updates without one; keep it small and let training.keep_checkpoints bound the disk.",
      ),
    keep_checkpoints: positiveInt
      .default(3)
      .describe(
        "How many complete checkpoints (iter_* folders) the orchestrator keeps in training.save_dir; older ones are deleted as new ones arrive. The one slime's tracker names and one still being written are never deleted.",
      ),
    stall_after_s: positiveInt
      .default(1800)
      .describe(
        "The trainer counts as stalled (status reports TRAINER_STALLED) when a full batch is waiting and no training step, batch delivery or acknowledgement came for this many seconds. Larger than your slowest step plus its weight update.",
      ),
    max_wait_s: z
      .number()
      .min(0)
      .default(0)
      .describe(
        "Train on a partial batch once the oldest ready sample has waited this many seconds and no full batch came (0: off, always a full training.batch_size). Trades latency for gradient noise: a person's turn reaches the weights within about this long, but a step over few samples is a noisier gradient at the same learning rate. On slime only the fork's Megatron backend with a single data-parallel rank can (it adds --use-dynamic-global-batch-size); upstream slime, the FSDP backend and a data-parallel trainer refuse a short batch. docs/judging.md.",
      ),
    load_dir: z.string().optional().describe("Resume from this checkpoint folder (--load)."),
    ref_load: z.string().optional().describe("Reference model checkpoint (--ref-load); defaults to model.path."),
    max_tokens_per_gpu: positiveInt.optional().describe("--max-tokens-per-gpu; default 32768 (megatron) or 8192 (fsdp)."),
    optimizer_cpu_offload: z.boolean().default(true).describe("Megatron optimizer CPU offload (as the reference)."),
    restart_on_crash: z.boolean().default(false).describe("Restart a crashed slime job from its last checkpoint."),
    fair_batch: fairBatchSchema.describe("How much of a batch one session may hold, fitted to the sessions with a sample ready (orchestrator/store/batch-composition.ts)."),
    sample_gate: sampleGateSchema.describe("Which responses are never trained: cut at the token limit, near-empty, or stuck in a repetition loop (orchestrator/samples/sample-gate.ts)."),
  })
  .strict()
  .prefault({});

/** The backend that will train: training.backend, else fsdp with training.lora, else megatron. */
export function trainingBackend(recipe: { training: { backend?: "megatron" | "fsdp" | undefined; lora?: unknown } }): "megatron" | "fsdp" {
  return recipe.training.backend ?? (recipe.training.lora ? "fsdp" : "megatron");
}
