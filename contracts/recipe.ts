// The recipe schema: every key, its default and its description live here and nowhere else.
// Cross-field checks that need only the recipe are here too; GPU placement checks live in launchers/placement.ts.
// One file on purpose, over 400 lines: the schema is the documentation (docs/recipe-reference.md is generated from it),
// and a reader checking a key finds its type, default, description and cross-field rules in one place.
import { z } from "zod";
import { STREAM_FORMS, type StreamForm } from "./sglang.ts";

const positiveInt = z.number().int().positive();
const port = z.number().int().min(1).max(65535);

export const methodSchema = z.enum(["binary", "opd", "combine", "hybrid"]).describe(
  "Training signal: binary (judge votes +1/0/-1, PPO), opd (hindsight-hint on-policy distillation), combine (both, weighted), hybrid (GRPO + top-K distillation over several hint candidates per turn, the reference's current method; the hybrid section).",
);
export type Method = z.infer<typeof methodSchema>;

/** Model families by the markup their checkpoints write (lib/model/model-family.ts: detection, SGLang parser names). */
export const MODEL_FAMILIES = ["qwen3", "qwen3-coder", "llama3", "deepseek-v3", "glm-4.5", "gpt-oss"] as const;
export type ModelFamilyName = (typeof MODEL_FAMILIES)[number];

export const modelSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .default("/models/Qwen3-4B-Thinking-2507")
      .describe("Hugging Face checkpoint folder of the policy (config, tokenizer.json, tokenizer_config.json with the chat template)."),
    tokenizer_path: z
      .string()
      .optional()
      .describe("Folder holding tokenizer.json and tokenizer_config.json when it differs from model.path; `builtin:qwen3` uses the Qwen3 files shipped with openclaw-rl."),
    served_name: z.string().min(1).default("qwen3-4b").describe("Model id the proxy answers to and lists in /v1/models."),
    aliases: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Other model ids the proxy answers to as the served model (and lists in /v1/models), e.g. a name a client insists on sending. Any id that is not served_name, an alias or a proxy.utility_models entry gets 404 model_not_found, as OpenAI's and Anthropic's APIs answer.",
      ),
    family: z
      .enum(["auto", ...MODEL_FAMILIES])
      .default("auto")
      .describe("Model family (how its reasoning and tool calls are written): auto = from the chat template's markup, else config.json architectures. Set it only when that guess is wrong."),
    reasoning_parser: z
      .enum(["auto", "qwen3", "none"])
      .default("auto")
      .describe("How reasoning is split from the answer: auto = the model family's way (model.family), qwen3 = Qwen3's <think>…</think> whatever the family, none = reasoning stays in the content."),
    tool_call_parser: z
      .enum(["auto", "qwen25", "none"])
      .default("auto")
      .describe("How tool calls are parsed: auto = the model family's markup (model.family), qwen25 = Qwen's <tool_call>{json}</tool_call> whatever the family, none = tool calls stay text."),
    context_length: positiveInt.default(32768).describe("Context length of the policy engines (--sglang-context-length)."),
    max_response_tokens: positiveInt.default(8192).describe("Longest response (--rollout-max-response-len); caps the client's max_tokens."),
  })
  .strict()
  .prefault({});

export const samplingSchema = z
  .object({
    temperature: z
      .number()
      .min(0)
      .max(2)
      .default(0.6)
      .describe(
        "The rollout temperature (slime's --rollout-temperature, the reference serves at 0.6): every main turn is sampled at it whatever the client sends, since slime recomputes the trained log-probs at it; side turns use the client's temperature, this one when it sends none.",
      ),
    top_p: z
      .number()
      .gt(0)
      .max(1)
      .default(1.0)
      .describe("Nucleus sampling of main turns. 1 only: neither slime flavour's trainer applies a top-p filter to the log-probs it recomputes (upstream replays one only with its patched SGLang's kept-token sets), so a filtered main turn would be trained off-policy. Side turns use the client's top_p."),
    top_k: z.number().int().default(-1).describe("Top-k sampling of main turns. -1 (off) only, for the reason top_p gives. Side turns use the client's top_k."),
    client_settings: z
      .enum(["trainer", "honor"])
      .default("trainer")
      .describe(
        "What a client's own sampling settings (temperature, top_p, top_k, min_p, penalties) do on main turns. trainer: main turns use the distribution slime trains (sampling.temperature, no filter, no penalty) and status counts the client's values; honor: main turns use the client's values, and a turn drawn from another distribution than the trainer's is recorded as off-policy and not trained. Side turns always use the client's values.",
      ),
  })
  .strict()
  .prefault({});

export const judgeSchema = z
  .object({
    path: z.string().optional().describe("Judge (PRM / teacher) checkpoint; defaults to model.path (a frozen copy of the policy, as the reference)."),
    tokenizer_path: z
      .string()
      .optional()
      .describe("Judge tokenizer folder when it differs from judge.path; `builtin:qwen3` uses the shipped Qwen3 files. Unset: judge.path, else the policy's tokenizer (model.tokenizer_path, else model.path)."),
    votes: positiveInt.max(64).default(3).describe("m: judge votes per turn, run in parallel (--prm-m)."),
    temperature: z.number().min(0).max(2).default(0.6).describe("Judge sampling temperature (--prm-temperature)."),
    max_new_tokens: positiveInt.default(4096).describe("Judge max new tokens (--prm-max-new-tokens)."),
    launch: z
      .enum(["slime", "standalone", "external"])
      .default("slime")
      .describe("Who runs the judge: slime (the OpenClaw-RL fork's --prm-* flags), standalone (sglang.launch_server on the PRM GPUs), external (judge.url)."),
    url: z.string().url().optional().describe("Judge base URL when judge.launch is external (an SGLang server)."),
    port: port.default(31000).describe("Port of the standalone judge server."),
    timeout_s: z.number().positive().default(180).describe("Timeout of one judge call, in seconds."),
    retries: z.number().int().min(0).max(10).default(2).describe("Retries of a failed judge call (timeouts, 5xx), with backoff."),
    concurrency: positiveInt.default(8).describe("Most judge and teacher calls in flight at once."),
    max_waiting_turns: positiveInt
      .default(1000)
      .describe("Closed turns that may wait for the judge; beyond this the oldest waiting turn is not judged (recorded as skipped: backlog-full)."),
  })
  .strict()
  .prefault({});

export const clusterSchema = z
  .object({
    nodes: positiveInt.default(1).describe("Number of nodes (the head plus workers that `npx openclaw-rl join`)."),
    gpus_per_node: positiveInt.default(8).describe("GPUs on each node."),
    actor_gpus: positiveInt.default(4).describe("GPUs for the Megatron/FSDP trainer (in total, across nodes)."),
    rollout_gpus: positiveInt.default(2).describe("GPUs for the policy SGLang engines."),
    prm_gpus: z.number().int().min(0).default(2).describe("GPUs for the judge engines (0 when the judge is external)."),
    actor_tp: positiveInt.default(4).describe("Megatron tensor parallel size of the trainer."),
    actor_pp: positiveInt.default(1).describe("Megatron pipeline parallel size."),
    actor_cp: positiveInt.default(1).describe("Megatron context parallel size."),
    rollout_tp: positiveInt.default(2).describe("Tensor parallel size of each policy engine (--rollout-num-gpus-per-engine)."),
    prm_tp: positiveInt.default(2).describe("Tensor parallel size of each judge engine (--prm-num-gpus-per-engine)."),
    head_address: z.string().default("127.0.0.1").describe("IP of the head node (Ray --node-ip-address; workers join it)."),
    ray_port: port.default(6379).describe("Ray GCS port on the head."),
    dashboard_port: port.default(8265).describe("Ray dashboard / job API port on the head."),
  })
  .strict()
  .prefault({});

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

export const sampleGateSchema = z
  .object({
    enabled: z.boolean().default(true).describe("Refuse responses unfit to train on before judging them: no sample, the reason in judgements.jsonl and counted in status (judging.skipped)."),
    drop_truncated: z.boolean().default(true).describe("No sample from a response cut at the token limit (finish reason length): often a loop that ran until model.max_response_tokens."),
    min_answer_chars: z
      .number()
      .int()
      .min(0)
      .default(2)
      .describe("No sample from an answer with fewer visible characters than this (whitespace and reasoning left out; a tool call always passes): catches empty and one-character answers. 0 turns the check off."),
    max_repeat_fraction: z
      .number()
      .gt(0)
      .max(1)
      .default(0.8)
      .describe("No sample when at least this share of the n-grams of token ids in the response's tail repeat earlier ones (a loop of period p fills w tokens with about p distinct n-grams). 1 catches only exact single-token loops."),
    loop_window_tokens: positiveInt.default(1024).describe("Tokens at the end of the response the repetition check looks at (loops longer than about a fifth of it are not seen)."),
    loop_ngram_tokens: positiveInt.max(64).default(8).describe("Length of the token n-grams the repetition check counts; a table or code row that differs in one value makes new n-grams."),
    loop_min_tokens: positiveInt.default(64).describe("Responses shorter than this are not checked for repetition."),
  })
  .strict()
  .prefault({});
export type SampleGateSettings = z.infer<typeof sampleGateSchema>;

export const fairBatchSchema = z
  .object({
    max_session_share: z
      .number()
      .gt(0)
      .max(1)
      .default(0.25)
      .describe("The most of a batch one session may hold once at least 1/max_session_share sessions are active (have a sample ready); with fewer active sessions each may hold an equal part of the batch (one user alone: all of it, no waiting). A chatty or looping session's other samples wait for later batches, in order, and one that the next weight version would make stale goes out then whatever the share (none is lost to it). An episode's steps count by task group, and a group's held-back steps complete a short batch at once. 1 turns it off."),
    relax_after_s: z
      .number()
      .min(0)
      .default(300)
      .describe("When no full batch can be made within the share (the active sessions hold unequal numbers of ready samples, e.g. a looping session beside one that spoke once) and a held-back chat sample has waited this long, the batch is completed with held-back samples, oldest first (episode steps do not wait: see max_session_share)."),
  })
  .strict()
  .prefault({});
export type FairBatchSettings = z.infer<typeof fairBatchSchema>;

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

export const combineSchema = z
  .object({
    w_rl: z.number().min(0).default(1.0).describe("Weight of the judge reward term in the combined advantage."),
    w_opd: z.number().min(0).default(1.0).describe("Weight of the teacher − old log-prob term in the combined advantage."),
  })
  .strict()
  .prefault({});

export const opdSchema = z
  .object({
    topk: z.number().int().min(0).max(1000).default(0).describe("Teacher top-K log-probs per position for the K+1-bin reverse-KL loss (0 = token-level OPD)."),
    min_hint_chars: z.number().int().min(0).default(10).describe("A hint must be longer than this to be kept (the reference's 10)."),
    teacher_temperature: z
      .number()
      .min(0.01)
      .max(2)
      .optional()
      .describe(
        "Temperature of the teacher's log-probs; defaults to sampling.temperature, the temperature of the student's rollout log-probs and of slime's recomputed ones (--rollout-temperature), so teacher − old compares like with like. SGLang's prefill (input) log-probs are always at 1, so any other value is scored one request per response token through SGLang's sampler (exact, slower; see docs/judging.md).",
      ),
    teacher: z
      .enum(["engine", "trainer"])
      .optional()
      .describe(
        "Where the teacher's log-probs are computed. engine: the judge engine scores each hinted turn. trainer: the trainer runs one forward pass of a frozen teacher (on slime the training.ref_load checkpoint, else model.path) over the hinted prompt + response, exact at any temperature, with no judge-engine request. Unset: trainer wherever the trainer can run it, else engine (`npx openclaw-rl plan` says which). docs/judging.md.",
      ),
  })
  .strict()
  .prefault({});

/** How the hybrid's loss picks the teacher candidate: by summed top-K overlap, per token, or the shortest hint. */
export const HYBRID_SELECTIONS = ["sequence_optimal", "token_optimal", "shortest"] as const;
/** Which vocabulary subset S_t the hybrid's distillation term sums over. */
export const HYBRID_SUBSETS = ["student", "teacher", "overlap"] as const;

export const hybridSchema = z
  .object({
    hint_votes: positiveInt
      .max(64)
      .optional()
      .describe("m: hint-judge votes per turn, each able to propose one hint. Unset: judge.votes (the reference asks both vote sets with its --prm-m, 3)."),
    eval_votes: positiveInt
      .max(64)
      .optional()
      .describe("Evaluation votes per turn; their majority (a tie or none valid: 0) is the turn's reward when it is ±1. Unset: judge.votes."),
    min_hint_chars: z
      .number()
      .int()
      .min(0)
      .default(10)
      .describe("A hint is kept only when its vote is 1 and its trimmed text is longer than this many characters (the reference's 10)."),
    max_candidates: positiveInt
      .max(64)
      .default(3)
      .describe("The most hint candidates per turn: kept hints are de-duplicated, sorted shortest first and cut to this many."),
    selection: z
      .enum(HYBRID_SELECTIONS)
      .default("sequence_optimal")
      .describe(
        "Which candidate teaches each response, from the overlap O[h, t] of the student's top-K with the teacher's top-K given hint h. sequence_optimal: the candidate with the largest overlap summed over the response; token_optimal: at each token the candidate with the largest overlap there; shortest: always the first (shortest) hint.",
      ),
    subset: z
      .enum(HYBRID_SUBSETS)
      .default("student")
      .describe("The vocabulary subset S_t the distillation term sums over at each token: student = the student's top-K (π_old), teacher = the chosen candidate's top-K, overlap = their intersection."),
    topk: positiveInt.max(1000).default(4).describe("K: the width of the student's and the teacher's top-K rows."),
    clip: z
      .number()
      .min(0)
      .default(1.0)
      .describe("C: at each token, each entry of S_t's teacher − old log-prob difference is clipped to ±C before it becomes that entry's advantage in the distillation term (0 = no clip)."),
    w_rl: z.number().min(0).default(1.0).describe("Weight of the GRPO term (the evaluation reward) in the hybrid's loss."),
    w_opd: z.number().min(0).default(1.0).describe("Weight of the top-K distillation term in the hybrid's loss."),
    fallback_to_unenhanced: z
      .boolean()
      .default(true)
      .describe(
        "A turn with an evaluation of ±1 but no kept hint: true trains it with one candidate, the un-enhanced prompt (its distillation term is then about 0), as the reference's OpenClaw server does; false makes no sample of it (the trainer takes a hybrid batch only when every sample carries a candidate, so it cannot be trained by the GRPO term alone).",
      ),
    teacher: z
      .enum(["trainer"])
      .default("trainer")
      .describe(
        "Who computes the candidates' top-K rows: the trainer, with a frozen teacher that is slime's --ref-load checkpoint (training.ref_load, else model.path: the policy's initial weights), one forward per candidate. A teacher of another size (the reference's --prm-teacher-load) is not offered.",
      ),
  })
  .strict()
  .prefault({});

export const proxySchema = z
  .object({
    host: z.string().default("127.0.0.1").describe("Bind address of the OpenAI-compatible proxy; any non-loopback address requires an API key."),
    port: port.default(30000).describe("Port of the proxy (point OpenClaw here)."),
    api_key_env: z.string().default("OPENCLAW_RL_API_KEY").describe("Name of the environment variable that holds the proxy's Bearer key."),
    admin_port: port.default(30001).describe("Loopback port of the status API, event stream and dashboard."),
    mode: z
      .enum(["tokens", "passthrough"])
      .default("tokens")
      .describe("tokens: render + tokenize here and call /generate (token-exact); passthrough: forward to /v1/chat/completions (approximate samples)."),
    max_body_bytes: positiveInt.default(32 * 1024 * 1024).describe("Largest request body accepted."),
    request_timeout_s: z.number().positive().default(900).describe("Longest time one chat request may take end to end."),
    session_idle_timeout_s: z.number().positive().default(1800).describe("A session's last turn is closed (with no next state) after this long without a request."),
    max_sessions: positiveInt.default(10000).describe("Sessions kept in memory; the least recently used are closed beyond this."),
    utility_models: z
      .array(z.string())
      .default([])
      .describe(
        "Model ids whose requests are side requests (OpenClaw's agents.defaults.utilityModel; Claude Code's small/fast model). Empty: <model.served_name>-utility, the name agent-config gives Claude Code, is the one utility model.",
      ),
    side_system_prefixes: z
      .array(z.string())
      .default(["You are a context summarization assistant", "Write an Activity recap"])
      .describe("A request whose system prompt starts with one of these is a side request."),
  })
  .strict()
  .prefault({});

/** The --sglang-* stream flag each slime flavour's SGLang has (see engine.slime.stream_output_flag). */
export const STREAM_OUTPUT_FLAG_OF_FLAVOR = {
  fork: "--sglang-stream-output",
  upstream: "--sglang-incremental-streaming-output",
} as const;

/** The streaming form the recipe's slime flavour and stream flag give on that flavour's SGLang (the stand-in's default). */
export function streamFormOf(slime: { flavor: keyof typeof STREAM_OUTPUT_FLAG_OF_FLAVOR; stream_output_flag: string }): StreamForm {
  if (slime.stream_output_flag === "none") return "cumulative";
  return slime.flavor === "fork" ? "legacy" : "incremental";
}

export const slimeSchema = z
  .object({
    flavor: z
      .enum(["fork", "upstream"])
      .default("fork")
      .describe(
        "Which slime is installed: fork = the OpenClaw-RL fork's slime (Gen-Verse/OpenClaw-RL 0d034dd) with its SGLang; upstream = THUDM/slime (624b824 or later) with its SGLang. The plan passes only options that flavour's parser accepts, and refuses what the flavour cannot do (upstream: no LoRA/FSDP, no top-K OPD, no judge.launch slime).",
      ),
    root: z.string().default("/opt/slime").describe("slime checkout (holds train_async.py)."),
    megatron_root: z.string().default("/opt/Megatron-LM").describe("Megatron-LM checkout (added to PYTHONPATH)."),
    model_args: z.string().optional().describe("slime scripts/models/*.sh file whose MODEL_ARGS describe the architecture (read by sourcing it in bash); default <root>/scripts/models/qwen3-4B.sh."),
    rotary_base: positiveInt
      .optional()
      .describe("--rotary-base of the policy; replaces the value in the model-args file (Qwen3-4B-Thinking-2507: 5000000, the model file says 1000000)."),
    python: z.string().default("python3").describe("Python interpreter of the slime environment."),
    ray: z.string().default("ray").describe("ray executable of the slime environment."),
    mem_fraction_static: z.number().gt(0).lt(1).default(0.8).describe("--sglang-mem-fraction-static."),
    stream_output_flag: z
      .enum(["--sglang-stream-output", "--sglang-incremental-streaming-output", "none"])
      .optional()
      .describe(
        "Makes SGLang stream only the new part of each /generate chunk instead of repeating the whole answer so far. Default: the flag of the flavour's SGLang (fork: --sglang-stream-output; upstream: --sglang-incremental-streaming-output); none keeps cumulative chunks. The fork's SGLang has no incremental flag, so that pair is refused.",
      ),
    extra_args: z.array(z.string()).default([]).describe("More train_async.py flags, appended last."),
    env: z.record(z.string(), z.string()).default({}).describe("More environment variables for every slime process."),
  })
  .strict()
  // The stream flag's default depends on the flavour, so it is filled in here: every later reader sees a concrete flag.
  .transform((slime) => ({ ...slime, stream_output_flag: slime.stream_output_flag ?? STREAM_OUTPUT_FLAG_OF_FLAVOR[slime.flavor] }))
  .prefault({});

export const rehearsalSchema = z
  .object({
    policy_port: port.default(31100).describe("Port of the stand-in policy server."),
    judge_port: port.default(31101).describe("Port of the stand-in judge server."),
    learn: z.enum(["auto", "on", "off"]).default("auto").describe("Stand-in trainer updates the stand-in policy with native/ losses when torch imports (auto), always (on) or never (off)."),
    train_seconds: z.number().min(0).default(1).describe("How long the stand-in trainer 'trains' on a batch."),
    seed: z.number().int().default(0).describe("Seed of the stand-in policy."),
    keep_policies: z
      .number()
      .int()
      .min(0)
      .default(3)
      .describe("Saved stand-in policies kept in <records.dir>/standin-policy/ (policy-vN.json, the newest N; 0 keeps every one): what `openclaw-rl eval --checkpoint vN` can evaluate."),
    stream_form: z
      .enum(STREAM_FORMS)
      .optional()
      .describe(
        "How the stand-in policy streams /generate, as one of SGLang's forms: cumulative (every chunk repeats the whole answer), incremental (every field a delta) or legacy (only output ids are deltas). Default: the form the real flavour's SGLang would use with engine.slime.stream_output_flag (fork: legacy; upstream: incremental; none: cumulative).",
      ),
  })
  .strict()
  .prefault({});

export const engineSchema = z
  .object({
    kind: z.enum(["slime", "external", "rehearsal"]).default("slime").describe("slime: launch Ray + slime + SGLang; external: attach to running SGLang servers; rehearsal: CPU stand-ins (the model is a stand-in)."),
    policy_url: z.string().url().optional().describe("Policy SGLang (router) base URL for engine.kind external."),
    judge_url: z.string().url().optional().describe("Judge SGLang base URL for engine.kind external (or judge.url)."),
    slime: slimeSchema,
    rehearsal: rehearsalSchema,
  })
  .strict()
  .prefault({});

export const sinkSchema = z
  .object({
    kind: z.enum(["bridge", "jsonl"]).default("bridge").describe("bridge: hand samples to the trainer; jsonl: append them to sink.path (train later)."),
    path: z.string().optional().describe("JSONL file for sink.kind jsonl (relative paths are inside records.dir)."),
  })
  .strict()
  .prefault({});

export const recordsSchema = z
  .object({
    dir: z.string().min(1).default(".openclaw-rl/run").describe("Run folder: turn and judgement records, the sample store, logs, the resolved recipe."),
  })
  .strict()
  .prefault({});

export const wandbSchema = z
  .object({
    enabled: z.boolean().default(false).describe("Log training to Weights & Biases."),
    project: z.string().default("openclaw_rl").describe("W&B project."),
    group: z.string().optional().describe("W&B group; defaults to <served_name>-<method>."),
    key_env: z.string().default("WANDB_API_KEY").describe("Variable holding the W&B key; passed through the environment, never on a command line."),
  })
  .strict()
  .prefault({});

export const episodesSchema = z
  .object({
    env_url: z
      .string()
      .url()
      .optional()
      .describe("Base URL of an environment server: one speaking the reference's lease protocol (/allocate, /reset, /exec_tool, /evaluate, /close), or its GUI or SWE pool (episodes.env_protocol); episodes are off without it or episodes.environment."),
    environment: z
      .enum(["toolcall", "terminal", "swe"])
      .optional()
      .describe("A built-in environment server that `start` runs and supervises (environments/): toolcall (math tasks, a sandboxed python tool), terminal (shell tasks checked by a script) or swe (tiny repositories with a failing test; each episode's final patch goes to the run folder's patches.jsonl). Instead of env_url."),
    environment_port: port.default(18090).describe("Loopback port of the built-in environment server."),
    env_protocol: z
      .enum(["lease", "gui", "swe"])
      .default("lease")
      .describe("The protocol episodes.env_url speaks: lease (the reference's terminal router/pool and our built-in servers), gui (the reference's GUI pool, gui-rl/env_pool_server.py: text observations only) or swe (its SWE pool, swe-rl/server/swe_env_pool_server.py: tasks carry image, problem_statement and eval_script). docs/episodes.md."),
    tasks: z
      .string()
      .optional()
      .describe('JSONL file of tasks, one {"task_meta": {...}} per line; task_meta\'s task_name and task_path make the task key (task_name:task_path). Default with episodes.environment: the tasks it ships.'),
    samples_per_task: positiveInt.default(8).describe("Episodes per task: the group whose steps are standardised together (the reference's --n-samples-per-prompt)."),
    max_steps: positiveInt.default(10).describe("Most steps (model turns) in an episode."),
    prm_step_coef: z.number().min(0).default(1).describe("c in the step reward r_t = o + c·p_t (o the episode's outcome, p_t the judge's step score)."),
    concurrency: positiveInt.default(16).describe("Episodes running at once (each holds a lease)."),
    epochs: positiveInt.default(1).describe("Passes over the task file."),
    group_timeout_s: z
      .number()
      .positive()
      .default(1800)
      .describe("A task group still short of samples_per_task finished episodes this long after its first one finished is trained as it is."),
  })
  .strict()
  .prefault({});

/** Whether `start` runs episodes (an environment server named or built in). */
export function episodesOn(recipe: { episodes: { env_url?: string; environment?: string } }): boolean {
  return recipe.episodes.env_url !== undefined || recipe.episodes.environment !== undefined;
}

/** The environment server's base URL: episodes.env_url, or the built-in one's loopback address; null when episodes are off. */
export function environmentUrl(recipe: { episodes: { env_url?: string; environment?: string; environment_port: number } }): string | null {
  if (recipe.episodes.env_url) return recipe.episodes.env_url;
  return recipe.episodes.environment ? `http://127.0.0.1:${recipe.episodes.environment_port}` : null;
}

export const evaluationSchema = z
  .object({
    every_versions: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe("Continuous held-out evaluation in `start`: evaluate the live policy version at the start (the base) and each time the weight version has advanced by this many; 0 = off (`openclaw-rl eval` still works)."),
    stop_if_worse: z
      .boolean()
      .default(false)
      .describe(
        "Pause training when a version's held-out score falls significantly below the best version's so far (the 95% t interval of the paired per-session difference lies below 0, over at least 6 sessions both scored): the bridge hands the trainer no new batch, the proxy keeps serving; resume with `openclaw-rl resume-training` (docs/evaluation.md). Needs every_versions > 0.",
      ),
    personas: z.string().optional().describe("JSONL persona set, one {id, persona, opener, rubric, turns} per line (docs/evaluation.md); default: the shipped configs/evaluation/personas.jsonl."),
    tasks: z
      .string()
      .optional()
      .describe("JSONL of held-out general-agent tasks in the environment task format, run in the episodes' environment (episodes.env_url or episodes.environment); refused when a task is also in episodes.tasks. Default with episodes.environment and its shipped tasks: the tasks it ships held out (environments/<name>/held-out.jsonl)."),
    episode_samples: positiveInt.max(64).default(4).describe("k: episodes per held-out task per version (outcome rate and pass@k)."),
    samples: positiveInt.max(32).default(2).describe("Sessions per opener per version (each with its own fixed simulator seeds)."),
    votes: positiveInt.max(16).default(3).describe("m: scorer votes per session (the judge with the persona's rubric), averaged."),
    simulator_url: z.string().url().optional().describe("OpenAI-compatible base URL of the simulated user's model; default: the judge engine's URL."),
    simulator_model: z.string().optional().describe("Model name sent to the simulator; default: the judge engine's served model (`default`)."),
    simulator_temperature: z.number().min(0).max(2).default(0.7).describe("The simulator's sampling temperature (its seed is fixed per opener, sample and turn)."),
    policy_temperature: z.number().min(0).max(2).default(1).describe("The policy's sampling temperature on evaluation chat turns, the same for every version (held-out episodes' steps are sampled as the run's episodes are)."),
    max_tokens: positiveInt.default(1024).describe("Most new tokens of an evaluation reply (policy, simulator and scorer alike)."),
    concurrency: positiveInt
      .max(64)
      .default(2)
      .describe("At most this many evaluation sessions at once, each with one request in flight: at most this many evaluation requests wait on the policy engine beside users' turns."),
    timeout_s: z.number().positive().default(300).describe("Timeout of one evaluation request, in seconds."),
  })
  .strict()
  .prefault({});

export const recipeObjectSchema = z
  .object({
    name: z.string().optional().describe("Recipe name shown in status and the banner."),
    method: methodSchema.default("binary"),
    model: modelSchema,
    sampling: samplingSchema,
    judge: judgeSchema,
    cluster: clusterSchema,
    training: trainingSchema,
    combine: combineSchema,
    opd: opdSchema,
    hybrid: hybridSchema,
    proxy: proxySchema,
    engine: engineSchema,
    sink: sinkSchema,
    records: recordsSchema,
    wandb: wandbSchema,
    episodes: episodesSchema,
    evaluation: evaluationSchema,
  })
  .strict();

/**
 * Why the trainer cannot compute the teacher's log-probs over the hinted prompt (opd.teacher: trainer) with this
 * recipe, or null when it can. On slime the teacher runs in the Megatron trainer (native/openclaw_rl/slime_teacher.py,
 * both flavours: native/tests/fixtures/slime_actor.json) over the --ref-load checkpoint at --rollout-temperature.
 */
export function trainerTeacherGap(recipe: z.output<typeof recipeObjectSchema>): string | null {
  const noTrainer = noTrainerGap(recipe);
  if (noTrainer !== null) return noTrainer;
  if (recipe.engine.kind === "rehearsal") {
    // the stand-in trainer scores through the judge stand-in's teacher, token-level values only
    return recipe.opd.topk > 0 ? "the rehearsal stand-in trainer gives token-level teacher log-probs only, no top-K rows; use opd.topk: 0 for it" : null;
  }
  if (recipe.opd.topk > 0 && recipe.engine.slime.flavor !== "fork") return "top-K rows reach the top-K loss on the fork's slime only; use opd.topk: 0 for it";
  const megatron = megatronTeacherGap(recipe);
  if (megatron !== null) return megatron;
  if (recipe.judge.path !== undefined && recipe.judge.path !== recipe.model.path) {
    return `the trainer's teacher is the --ref-load checkpoint (training.ref_load, else model.path), but judge.path ${recipe.judge.path} names another model as the teacher`;
  }
  const temperature = recipe.opd.teacher_temperature;
  if (temperature !== undefined && temperature !== recipe.sampling.temperature) {
    return `slime's forward scores at --rollout-temperature (sampling.temperature ${recipe.sampling.temperature}), not opd.teacher_temperature ${temperature}`;
  }
  return null;
}

/**
 * Why the trainer cannot run the hybrid (its frozen teacher's top-K rows for every hint candidate, then its loss) with
 * this recipe, or null when it can. The teacher is the --ref-load checkpoint, whatever judge.path says (the judge
 * only votes).
 */
export function hybridTrainerGap(recipe: z.output<typeof recipeObjectSchema>): string | null {
  const noTrainer = noTrainerGap(recipe);
  if (noTrainer !== null) return noTrainer;
  // the rehearsal's stand-in trainer has the hybrid's loss (rehearsal/trainer/hybrid.py)
  if (recipe.engine.kind === "rehearsal") return null;
  return megatronTeacherGap(recipe);
}

/** Recipes where no trainer of ours takes the samples. */
function noTrainerGap(recipe: z.output<typeof recipeObjectSchema>): string | null {
  if (recipe.sink.kind === "jsonl") return "with sink.kind jsonl no trainer takes the samples, so nothing would score their teacher tokens";
  if (recipe.engine.kind === "external") return "engine.kind external runs no trainer of ours";
  return null;
}

/** What keeps slime's Megatron trainer from running a teacher's forward beside the student's. */
function megatronTeacherGap(recipe: z.output<typeof recipeObjectSchema>): string | null {
  if (trainingBackend(recipe) !== "megatron") return "the teacher's forward runs in slime's Megatron trainer; training.backend is fsdp";
  if (recipe.cluster.actor_cp > 1) return `cluster.actor_cp is ${recipe.cluster.actor_cp}: with context parallelism each rank's log-probs are its slice of the teacher's longer sequence, not of the student's`;
  return null;
}

/** The methods whose teacher is opd's (opd.teacher, opd.teacher_temperature): opd and combine. */
export function usesOpdTeacher(method: Method): boolean {
  return method === "opd" || method === "combine";
}

/**
 * Where the teacher's log-probs are computed: the trainer for the hybrid; else opd.teacher when set, else the trainer
 * wherever it can run it.
 */
export function opdTeacher(recipe: z.output<typeof recipeObjectSchema>): "engine" | "trainer" {
  if (recipe.method === "hybrid") return recipe.hybrid.teacher;
  if (recipe.opd.teacher !== undefined) return recipe.opd.teacher;
  return usesOpdTeacher(recipe.method) && trainerTeacherGap(recipe) === null ? "trainer" : "engine";
}

/** Checks that need several keys at once; each message names the YAML path it is about. */
export const recipeSchema = recipeObjectSchema.superRefine((recipe, context) => {
  const issue = (path: (string | number)[], message: string) => context.addIssue({ code: "custom", path, message });

  if (recipe.evaluation.tasks && !episodesOn(recipe)) {
    issue(["evaluation", "tasks"], "held-out tasks run in the episodes' environment: set episodes.env_url or episodes.environment, or remove evaluation.tasks");
  }
  if (recipe.evaluation.stop_if_worse && recipe.evaluation.every_versions === 0) {
    issue(["evaluation", "stop_if_worse"], "the guard compares the versions continuous evaluation scores: set evaluation.every_versions > 0, or stop_if_worse: false");
  }
  if (recipe.evaluation.stop_if_worse && recipe.sink.kind === "jsonl") {
    issue(["evaluation", "stop_if_worse"], "with sink.kind jsonl no trainer takes batches from the bridge, so there is no training to pause: use sink.kind bridge, or stop_if_worse: false");
  }
  if (recipe.episodes.env_url && !recipe.episodes.tasks) issue(["episodes", "tasks"], "episodes.env_url is set, so episodes.tasks (a JSONL file of tasks) is required");
  if (recipe.episodes.env_url && recipe.episodes.environment) {
    issue(["episodes", "environment"], "set episodes.env_url (your environment server) or episodes.environment (a built-in one that start runs), not both");
  }
  if (recipe.episodes.environment && recipe.episodes.env_protocol !== "lease") {
    issue(["episodes", "env_protocol"], `the built-in ${recipe.episodes.environment} environment speaks the lease protocol: env_protocol ${recipe.episodes.env_protocol} is for episodes.env_url (the reference's GUI or SWE pool)`);
  }
  if (episodesOn(recipe) && recipe.method === "opd") {
    issue(["method"], "episodes are trained with step rewards (the RL term): use method binary or combine with episodes; opd has no reward term");
  }
  if (episodesOn(recipe) && recipe.method === "hybrid") {
    issue(["method"], "episodes are trained with step rewards standardised per task group, which the hybrid's samples (a turn's votes and hint candidates) do not carry: use method binary or combine with episodes");
  }
  const rehearsal = recipe.engine.kind === "rehearsal"; // stand-ins replace every engine and the judge
  if (!rehearsal && recipe.judge.launch === "external" && !recipe.judge.url && !recipe.engine.judge_url) {
    issue(["judge", "url"], "judge.launch is external, so judge.url (an SGLang base URL) is required");
  }
  if (recipe.engine.kind === "external" && !recipe.engine.policy_url) {
    issue(["engine", "policy_url"], "engine.kind is external, so engine.policy_url (the policy SGLang base URL) is required");
  }
  if (recipe.engine.kind === "external" && recipe.judge.launch !== "external" && !recipe.engine.judge_url) {
    issue(["judge", "launch"], "engine.kind is external, so the judge must be external too: set judge.launch: external and judge.url");
  }
  if (recipe.sink.kind === "jsonl" && !recipe.sink.path) {
    issue(["sink", "path"], "sink.kind is jsonl, so sink.path (a JSONL file) is required");
  }
  if (recipe.sink.kind === "jsonl" && recipe.engine.kind === "slime") {
    issue(["sink", "kind"], "slime trains from the bridge, so engine.kind slime needs sink.kind bridge; to collect samples for later, serve the policy yourself with engine.kind: external and sink.kind: jsonl");
  }
  if (recipe.training.eps_clip_high < recipe.training.eps_clip) {
    issue(["training", "eps_clip_high"], `must be >= training.eps_clip (${recipe.training.eps_clip})`);
  }
  if (recipe.method === "binary" && recipe.opd.topk > 0) {
    issue(["opd", "topk"], "top-K distillation needs method opd (binary has no teacher)");
  }
  if (recipe.method === "combine" && recipe.opd.topk > 0) {
    issue(["opd", "topk"], "top-K distillation is an opd loss; combine uses token-level teacher log-probs (set opd.topk: 0 or method: opd)");
  }
  if (recipe.method === "hybrid" && recipe.opd.topk > 0) {
    issue(["opd", "topk"], "method hybrid takes its top-K width from hybrid.topk; opd.topk is opd's (remove it, or set hybrid.topk)");
  }
  if (usesOpdTeacher(recipe.method) && recipe.opd.teacher_temperature === undefined && recipe.sampling.temperature < 0.01) {
    issue(
      ["opd", "teacher_temperature"],
      `sampling.temperature is ${recipe.sampling.temperature} (greedy or nearly), which gives the teacher no temperature to score at; set opd.teacher_temperature (at least 0.01)`,
    );
  }
  if (recipe.sampling.top_p !== 1) {
    issue(["sampling", "top_p"], `is ${recipe.sampling.top_p}: main turns are trained on log-probs slime recomputes with no top-p filter (the fork's and upstream's get_responses apply only --rollout-temperature; upstream's top-p replay needs its patched SGLang), so they must be sampled with none; set sampling.top_p: 1`);
  }
  if (recipe.sampling.top_k !== -1) {
    issue(["sampling", "top_k"], `is ${recipe.sampling.top_k}: main turns are trained on log-probs slime recomputes with no top-k filter, so they must be sampled with none; set sampling.top_k: -1`);
  }
  if (recipe.method === "combine" && recipe.combine.w_rl === 0 && recipe.combine.w_opd === 0) {
    issue(["combine"], "combine.w_rl and combine.w_opd are both 0: nothing would be learned");
  }
  if (recipe.method === "opd" && recipe.opd.topk > 0 && recipe.training.kl_coef > 0) {
    issue(
      ["training", "kl_coef"],
      "training.kl_coef > 0 has no effect with top-K distillation (opd.topk > 0): slime computes no reference log-probs when it computes no advantages, and the top-K loss has no KL term; set training.kl_coef: 0 (or opd.topk: 0 for token-level OPD with a KL term)",
    );
  }
  const teacherGap = trainerTeacherGap(recipe);
  if (recipe.opd.teacher === "trainer" && usesOpdTeacher(recipe.method) && teacherGap !== null) {
    issue(["opd", "teacher"], `the trainer cannot compute the teacher here: ${teacherGap}; use opd.teacher: engine (the judge engine scores the hinted turns)`);
  }
  const hybridGap = recipe.method === "hybrid" ? hybridTrainerGap(recipe) : null;
  if (hybridGap !== null) {
    issue(["hybrid", "teacher"], `method hybrid needs the trainer's frozen teacher to score every hint candidate, and it cannot here: ${hybridGap}; change that, or use method: combine (whose teacher can be the judge engine)`);
  }
  if (recipe.method === "hybrid" && recipe.engine.slime.extra_args.includes("--use-rollout-logprobs")) {
    issue(["engine", "slime", "extra_args"], "method hybrid compares the teacher with the trainer's own old log-probs, which --use-rollout-logprobs replaces with the engine's (the hybrid loss refuses it, as the reference's asserts); remove it");
  }
  if (recipe.method === "hybrid" && recipe.hybrid.w_rl === 0 && recipe.hybrid.w_opd === 0) {
    issue(["hybrid"], "hybrid.w_rl and hybrid.w_opd are both 0: nothing would be learned");
  }
  if (recipe.training.kl_coef > 0 && !recipe.training.use_kl_loss) {
    issue(["training", "kl_coef"], "training.kl_coef > 0 needs training.use_kl_loss: true (the KL term needs the reference model)");
  }
  const backend = trainingBackend(recipe);
  if (backend === "megatron" && recipe.training.lora) {
    issue(["training", "backend"], "LoRA needs the fsdp backend in slime (set training.backend: fsdp or remove training.lora)");
  }
  if (backend === "fsdp" && recipe.method !== "binary") {
    issue(
      ["training", "backend"],
      `slime's FSDP backend ignores custom losses and teacher fields, so method ${recipe.method} would silently train plain GRPO; use training.backend: megatron (full weights) or method: binary`,
    );
  }
  if (recipe.engine.kind === "slime") flavorIssues(recipe, backend, issue);
});

/**
 * What one slime flavour cannot do, refused before anything starts. Upstream's Megatron parser ignores options it
 * does not know (THUDM/slime 624b824 parses with ignore_unknown_args), so a fork-only option there would be dropped
 * silently rather than rejected.
 */
function flavorIssues(recipe: z.output<typeof recipeObjectSchema>, backend: "megatron" | "fsdp", issue: (path: (string | number)[], message: string) => void): void {
  const slime = recipe.engine.slime;
  if (recipe.training.max_wait_s > 0 && (slime.flavor === "upstream" || backend === "fsdp")) {
    issue(
      ["training", "max_wait_s"],
      slime.flavor === "upstream"
        ? "engine.slime.flavor upstream cannot train a batch shorter than training.batch_size (its data-parallel schedule asserts at least one full global batch, and it has no --use-dynamic-global-batch-size); set training.max_wait_s: 0, or use engine.slime.flavor: fork with training.backend: megatron"
        : "slime's FSDP backend splits and scales every step by the static global batch size, so a partial batch would be mis-split or mis-scaled; set training.max_wait_s: 0, or use training.backend: megatron (full weights)",
    );
  }
  if (slime.flavor === "fork") {
    if (slime.stream_output_flag === "--sglang-incremental-streaming-output") {
      issue(
        ["engine", "slime", "stream_output_flag"],
        "engine.slime.flavor fork: the fork's SGLang (dce8b060) has no --sglang-incremental-streaming-output, so its parser would reject it; use --sglang-stream-output (the fork's default) or none",
      );
    }
    return;
  }
  if (recipe.training.lora) {
    issue(
      ["training", "lora"],
      "engine.slime.flavor upstream has no LoRA: LoRA lives in the fork's FSDP backend, and upstream's --train-backend accepts only megatron; remove training.lora to train full weights with Megatron, or use engine.slime.flavor: fork",
    );
  } else if (backend === "fsdp") {
    issue(["training", "backend"], "engine.slime.flavor upstream trains with Megatron only (its --train-backend accepts only megatron); use training.backend: megatron, or engine.slime.flavor: fork");
  }
  if (recipe.opd.topk > 0) {
    issue(
      ["opd", "topk"],
      "engine.slime.flavor upstream hands only teacher_log_probs to the loss (its rollout manager converts no top-K arrays), so top-K distillation cannot run there; use opd.topk: 0 (token-level OPD through upstream's --use-opd), or engine.slime.flavor: fork",
    );
  }
  if (recipe.judge.launch === "slime") {
    issue(
      ["judge", "launch"],
      "engine.slime.flavor upstream has no --prm-* options (they are the fork's; upstream would drop them and no judge would run); use judge.launch: standalone (an SGLang server on the PRM GPUs) or external, or engine.slime.flavor: fork",
    );
  }
}

export type Recipe = z.output<typeof recipeSchema>;
export type RecipeInput = z.input<typeof recipeSchema>;

/** The backend that will actually train (the schema leaves it implicit). */
export function trainingBackend(recipe: Recipe): "megatron" | "fsdp" {
  return recipe.training.backend ?? (recipe.training.lora ? "fsdp" : "megatron");
}

/** The temperature the teacher's log-probs are scored at: opd.teacher_temperature, else the rollout temperature. */
export function teacherTemperature(recipe: Recipe): number {
  return recipe.opd.teacher_temperature ?? recipe.sampling.temperature;
}

/** The judge's checkpoint: judge.path, else the policy's. */
export function judgePath(recipe: Recipe): string {
  return recipe.judge.path ?? recipe.model.path;
}

/** The external judge's base URL: judge.url, else engine.judge_url; null when neither is set. */
export function judgeUrl(recipe: { judge: { url?: string | undefined }; engine: { judge_url?: string | undefined } }): string | null {
  return recipe.judge.url ?? recipe.engine.judge_url ?? null;
}

/** The hybrid's two vote counts per turn: hybrid.hint_votes and hybrid.eval_votes, each judge.votes when unset. */
export function hybridVotes(recipe: Recipe): { hint: number; evaluation: number } {
  return { hint: recipe.hybrid.hint_votes ?? recipe.judge.votes, evaluation: recipe.hybrid.eval_votes ?? recipe.judge.votes };
}
