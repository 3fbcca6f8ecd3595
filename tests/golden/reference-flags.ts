// train_async.py flags of the reference launch scripts (Gen-Verse/OpenClaw-RL at 0d034dd), extracted by hand:
// openclaw-rl/run_qwen3_4b_openclaw_rl.sh, openclaw-opd/run_qwen3_4b_openclaw_opd.sh, _opd_topk.sh and
// openclaw-combine/run_qwen3_4b_openclaw_combine.sh, with MODEL_ARGS from slime/scripts/models/qwen3-4B.sh; the hybrid's
// from openclaw-combine/run_qwen3_4b_openclaw_topk_select.sh at tranzmatt/OpenClaw-RL ffdebf1 (the same MODEL_ARGS).
// Values are the effective ones (a repeated flag keeps its last value: --rotary-base 1000000 then 5000000).
// The W&B block is left out: the scripts add it only when a key is in the environment.

export type FlagTable = Record<string, string | null>; // null = a flag without a value

const MODEL: FlagTable = {
  "--swiglu": null, "--num-layers": "36", "--hidden-size": "2560", "--ffn-hidden-size": "9728",
  "--num-attention-heads": "32", "--group-query-attention": null, "--num-query-groups": "8",
  "--use-rotary-position-embeddings": null, "--disable-bias-linear": null, "--normalization": "RMSNorm",
  "--norm-epsilon": "1e-6", "--rotary-base": "5000000", "--vocab-size": "151936", "--kv-channels": "128", "--qk-layernorm": null,
};

const BINARY: FlagTable = {
  "--actor-num-nodes": "1", "--actor-num-gpus-per-node": "4", "--rollout-num-gpus": "2", "--num-gpus-per-node": "8",
  ...MODEL,
  "--megatron-to-hf-mode": "bridge", "--hf-checkpoint": "/absolute/path/to/Qwen3-4B-Thinking-2507",
  "--ref-load": "/absolute/path/to/Qwen3-4B-Thinking-2507", "--save": "/absolute/path/to/OpenClaw-RL/ckpt/qwen3-4b-openclaw-rl",
  "--save-interval": "100",
  "--disable-rollout-global-dataset": null, "--rollout-function-path": "openclaw_rollout.generate_rollout_openclaw",
  "--num-rollout": "100000000", "--rollout-batch-size": "16", "--n-samples-per-prompt": "1",
  "--rollout-max-response-len": "8192", "--rollout-max-context-len": "32768", "--rollout-temperature": "0.6",
  "--reward-key": "score", "--num-steps-per-rollout": "1",
  "--optimizer": "adam", "--lr": "1e-5", "--lr-decay-style": "constant", "--weight-decay": "0.1",
  "--adam-beta1": "0.9", "--adam-beta2": "0.98", "--optimizer-cpu-offload": null,
  "--overlap-cpu-optimizer-d2h-h2d": null, "--use-precision-aware-optimizer": null,
  "--advantage-estimator": "grpo", "--disable-rewards-normalization": null, "--use-kl-loss": null,
  "--kl-loss-coef": "0.0", "--kl-loss-type": "low_var_kl", "--entropy-coef": "0.00", "--eps-clip": "0.2", "--eps-clip-high": "0.28",
  "--tensor-model-parallel-size": "4", "--sequence-parallel": null, "--pipeline-model-parallel-size": "1",
  "--context-parallel-size": "1", "--expert-model-parallel-size": "1", "--expert-tensor-parallel-size": "1",
  "--recompute-granularity": "full", "--recompute-method": "uniform", "--recompute-num-layers": "1",
  "--use-dynamic-batch-size": null, "--max-tokens-per-gpu": "32768", "--log-probs-chunk-size": "1024",
  "--rollout-num-gpus-per-engine": "2", "--sglang-tool-call-parser": "qwen25", "--sglang-mem-fraction-static": "0.85",
  "--sglang-context-length": "32768", "--sglang-reasoning-parser": "qwen3",
  "--attention-dropout": "0.0", "--hidden-dropout": "0.0", "--accumulate-allreduce-grads-in-fp32": null,
  "--attention-softmax-in-fp32": null, "--attention-backend": "flash",
  "--custom-generate-function-path": "openclaw_api_server.generate", "--custom-rm-path": "openclaw_api_server.reward_func",
  "--prm-enable": null, "--prm-num-gpus": "2", "--prm-num-gpus-per-engine": "2",
  "--prm-model-path": "/absolute/path/to/Qwen3-4B-Thinking-2507", "--prm-m": "3", "--prm-temperature": "0.6", "--prm-max-new-tokens": "4096",
};

function without(table: FlagTable, ...flags: string[]): FlagTable {
  return Object.fromEntries(Object.entries(table).filter(([flag]) => !flags.includes(flag)));
}

const OPD: FlagTable = {
  ...without(BINARY, "--disable-rewards-normalization", "--eps-clip", "--eps-clip-high"),
  "--save": "/absolute/path/to/OpenClaw-RL/ckpt/qwen3-4b-openclaw-opd",
  "--rollout-function-path": "openclaw_opd_rollout.generate_rollout_openclaw_opd",
  "--advantage-estimator": "on_policy_distillation",
  "--sglang-mem-fraction-static": "0.8",
  "--prm-m": "1", "--prm-max-new-tokens": "8192",
  "--custom-generate-function-path": "openclaw_opd_api_server.generate", "--custom-rm-path": "openclaw_opd_api_server.reward_func",
};

const OPD_TOPK: FlagTable = {
  ...without(BINARY, "--advantage-estimator", "--disable-rewards-normalization", "--use-kl-loss", "--kl-loss-coef", "--kl-loss-type", "--eps-clip", "--eps-clip-high"),
  "--save": "/absolute/path/to/OpenClaw-RL/ckpt/qwen3-4b-openclaw-opd-topk", "--save-interval": "1",
  "--rollout-function-path": "openclaw_opd_rollout.generate_rollout_openclaw_opd", "--rollout-batch-size": "4",
  "--loss-type": "custom_loss", "--custom-loss-function-path": "topk_distillation_loss.topk_distillation_loss_function",
  "--distill-topk": "50", "--disable-compute-advantages-and-returns": null,
  "--lr": "1e-6", "--prm-max-new-tokens": "8192",
  "--custom-generate-function-path": "openclaw_opd_api_server.generate", "--custom-rm-path": "openclaw_opd_api_server.reward_func",
};

const COMBINE: FlagTable = {
  ...BINARY,
  "--hf-checkpoint": "/data_storage/wyj/systems/huggingface/hub/Qwen3-4B-Thinking-2507",
  "--ref-load": "/data_storage/wyj/systems/huggingface/hub/Qwen3-4B-Thinking-2507",
  "--save": "/data_storage/wyj/OpenClaw-RL/ckpt/qwen3-4b-openclaw-combine",
  "--prm-model-path": "/data_storage/wyj/systems/huggingface/hub/Qwen3-4B-Thinking-2507",
  "--rollout-function-path": "openclaw_combine_rollout.generate_rollout_openclaw_combine",
  "--loss-type": "custom_loss", "--custom-loss-function-path": "combine_loss.combine_loss_function",
  "--sglang-mem-fraction-static": "0.8", "--prm-m": "1", "--prm-max-new-tokens": "8192",
  "--custom-generate-function-path": "openclaw_combine_api_server.generate", "--custom-rm-path": "openclaw_combine_api_server.reward_func",
};

const HYBRID_CHECKPOINT = "/data_storage/wyj/systems/huggingface/hub/Qwen3-4B-Thinking-2507";
const HYBRID: FlagTable = {
  ...without(BINARY, "--megatron-to-hf-mode"),
  "--hf-checkpoint": HYBRID_CHECKPOINT,
  "--ref-load": "/data_storage/wyj/systems/huggingface/hub/Qwen3-4B-Thinking-2507-_torch_dist",
  "--save": "/data_storage/wyj/OpenClaw-RL/ckpt/qwen3-4b-openclaw-topk-select",
  "--prm-teacher-load": "/data_storage/wyj/systems/huggingface/hub/Qwen3-4B-Thinking-2507-_torch_dist",
  "--prm-teacher-num-gpus": "1", "--prm-teacher-hf-checkpoint": HYBRID_CHECKPOINT, "--prm-teacher-rotary-base": "5000000",
  "--rollout-function-path": "openclaw_combine_select_rollout.generate_rollout_openclaw_combine_select",
  "--loss-type": "custom_loss", "--custom-loss-function-path": "openclaw_topk_select_loss.openclaw_topk_select_loss_function",
  "--distill-topk": "4", "--distill-subset-mode": "student", "--hint-m": "3", "--hint-selection": "sequence_optimal",
  "--sglang-mem-fraction-static": "0.8",
  "--prm-num-gpus": "1", "--prm-num-gpus-per-engine": "1", "--prm-model-path": HYBRID_CHECKPOINT, "--prm-max-new-tokens": "8192",
  "--custom-generate-function-path": "openclaw_combine_api_server.generate", "--custom-rm-path": "openclaw_combine_api_server.reward_func",
};

export const REFERENCE_FLAGS = { "qwen3-4b-binary": BINARY, "qwen3-4b-opd": OPD, "qwen3-4b-opd-topk": OPD_TOPK, "qwen3-4b-combine": COMBINE, "qwen3-4b-hybrid": HYBRID };

/** What we do differently on purpose: the flag's value in our argv ("absent" = left out) and why. */
export interface Difference {
  ours: string | null | "absent";
  why: string;
}

const CHECKPOINT = "/models/Qwen3-4B-Thinking-2507";
const COMMON: Record<string, Difference> = {
  "--rollout-function-path": { ours: "openclaw_rl.rollout.generate_rollout", why: "our rollout function (bridge client) replaces the Python proxy" },
  "--custom-generate-function-path": { ours: "openclaw_rl.shims.generate", why: "our shim; slime needs a valid path" },
  "--custom-rm-path": { ours: "openclaw_rl.shims.reward", why: "our shim; rewards come from the TS judge" },
  "--hf-checkpoint": { ours: CHECKPOINT, why: "model.path of the recipe instead of the script's placeholder" },
  "--ref-load": { ours: CHECKPOINT, why: "training.ref_load, default model.path" },
  "--prm-model-path": { ours: CHECKPOINT, why: "judge.path, default model.path" },
  "--save": { ours: "/runs/golden/checkpoints", why: "training.save_dir inside records.dir" },
  "--custom-config-path": { ours: "/runs/golden/slime-custom-config.yaml", why: "combine weights and top-K reach the losses as args attributes (stated once)" },
  "--custom-megatron-init-path": { ours: "openclaw_rl.trainer_hooks.install", why: "each training step's metrics (loss, grad norm, train/rollout log-prob diff) reach status through the bridge; with opd.teacher trainer, the teacher's forward over the hinted prompt runs in the trainer" },
  "--sglang-tool-call-parser": {
    ours: "qwen",
    why: "SGLang's name for the same parser: the scripts' qwen25 is deprecated and mapped to qwen with a warning (sglang dce8b060 server_args.py:773-778)",
  },
  "--sglang-stream-output": { ours: null, why: "SGLang streams only new tokens per chunk; with cumulative chunks the proxy would re-parse the whole answer at every token" },
};
const EXPLICIT_CLIP = {
  "--eps-clip": { ours: "0.2", why: "the script passes none; slime's default 0.2, stated explicitly" },
  "--eps-clip-high": { ours: "0.2", why: "the script passes none; slime then uses eps_clip (0.2), stated explicitly" },
};

const TRUE_ENTROPY = {
  "--loss-type": { ours: "custom_loss", why: "slime's own policy loss through openclaw_rl.losses.policy_loss_function, which adds the policy's true entropy (the fork's entropy_loss is the entropy of the softmax its cross entropy wrote into the logits)" },
  "--custom-loss-function-path": { ours: "openclaw_rl.losses.policy_loss_function", why: "calls slime's policy_loss_function unchanged and reports openclaw_rl_entropy beside it" },
};

const MISMATCH_CORRECTION = {
  "--use-tis": { ours: null, why: "training.mismatch_correction: tis — truncated importance sampling against the train/inference mismatch (the reference's users report 0.2–0.4 log-prob gaps, its #69); the scripts train on the biased ratio" },
  "--tis-clip": { ours: "2", why: "slime's default clip, stated explicitly (training.tis_clip)" },
  "--tis-clip-low": { ours: "0", why: "slime's default lower clip, stated explicitly (training.tis_clip_low)" },
};

const EARLY_CHECKPOINT = {
  "--save-interval": { ours: "5", why: "the reference's 100 left runs ~20 weight updates without a checkpoint; slime saves only every N steps, so N is when the first one comes (training.keep_checkpoints bounds the disk)" },
};

export const INTENTIONAL_DIFFERENCES: Record<keyof typeof REFERENCE_FLAGS, Record<string, Difference>> = {
  "qwen3-4b-binary": { ...COMMON, ...EARLY_CHECKPOINT, ...TRUE_ENTROPY, ...MISMATCH_CORRECTION },
  "qwen3-4b-opd": { ...COMMON, ...EXPLICIT_CLIP, ...EARLY_CHECKPOINT, ...TRUE_ENTROPY, ...MISMATCH_CORRECTION },
  "qwen3-4b-opd-topk": {
    ...COMMON,
    ...EXPLICIT_CLIP,
    "--custom-loss-function-path": { ours: "openclaw_rl.losses.topk_distillation_loss_function", why: "our top-K loss" },
    "--distill-topk": { ours: "absent", why: "K reaches the loss as openclaw_rl_topk in the custom config; slime itself never reads it" },
    "--disable-rewards-normalization": { ours: null, why: "fix: without it GRPO's constant-group drop discards 3 of every 4 samples" },
  },
  "qwen3-4b-combine": {
    ...COMMON,
    ...EARLY_CHECKPOINT,
    ...MISMATCH_CORRECTION,
    "--custom-loss-function-path": { ours: "openclaw_rl.losses.combine_loss_function", why: "our combine loss" },
  },
  "qwen3-4b-hybrid": {
    ...COMMON,
    ...EARLY_CHECKPOINT,
    "--megatron-to-hf-mode": { ours: "bridge", why: "--ref-load is model.path, a Hugging Face folder loaded through Megatron-Bridge; the script loads a torch_dist conversion" },
    "--custom-loss-function-path": { ours: "openclaw_rl.losses.hybrid_loss_function", why: "our hybrid loss" },
    "--distill-topk": { ours: "absent", why: "K reaches our loss as openclaw_rl_hybrid_topk in the custom config" },
    "--distill-subset-mode": { ours: "absent", why: "the reference's slime's own option; the subset reaches our loss as openclaw_rl_hybrid_subset" },
    "--hint-selection": { ours: "absent", why: "the reference's slime's own option; the selection reaches our loss as openclaw_rl_hybrid_selection" },
    "--hint-m": { ours: "absent", why: "the script passes its candidate cap there; our judge side applies hybrid.max_candidates and asks hybrid.hint_votes" },
    "--prm-teacher-load": { ours: "absent", why: "the frozen teacher is --ref-load (the same checkpoint by the script's default), run in the trainer: no teacher GPU group" },
    "--prm-teacher-num-gpus": { ours: "absent", why: "no teacher GPU group: the teacher's forward runs on the trainer's GPUs" },
    "--prm-teacher-hf-checkpoint": { ours: "absent", why: "the teacher is the student's own checkpoint (--ref-load), so it has the student's tokenizer and config" },
    "--prm-teacher-rotary-base": { ours: "absent", why: "the teacher is the student's checkpoint, whose --rotary-base it shares" },
  },
};
