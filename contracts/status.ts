// The JSON shape of GET /status (versioned): what `openclaw-rl status` prints and `--json` emits. The zod
// schema is the edge check of the CLI that reads it over HTTP; orchestrator/status/status-tracker.ts fills it.
import { z } from "zod";
import { ENGINE_STATES, ENTROPY_SOURCES, SKIP_CATEGORIES } from "./events.ts";
import { methodSchema } from "./recipe.ts";

// 2: samples counted as one sum (made + from_earlier_runs = ready + in_training + trained + dropped); `delivered`
// is every sample handed out (it was those in training), `acknowledged` and `dropped_stale` became `trained`, `dropped`.
export const STATUS_VERSION = 2 as const;

const engineStateSchema = z.enum(ENGINE_STATES);

/** The learning latency's stages, each from the one before (closed: from the turn's answer), and the whole. */
export const LEARNING_LATENCY_STAGES = ["closed", "judged", "handed", "trained", "served", "total"] as const;
const spreadSchema = z.object({ median: z.number(), p90: z.number() }).nullable();

const outcomeRateSchema = z.object({ finished: z.number().int(), failed: z.number().int(), outcome_rate: z.number().nullable() });

export const statusSnapshotSchema = z.object({
  version: z.literal(STATUS_VERSION),
  run_id: z.string().nullable().default(null).describe("This run's id (start's): every counter below is this run's unless its name says otherwise."),
  ready: z.boolean(),
  reason: z.string(),
  name: z.string().nullable(),
  method: methodSchema,
  engine: z.enum(["slime", "external", "rehearsal"]),
  stand_in: z.boolean().describe("True for engine.kind rehearsal: the model is a stand-in."),
  model: z.string(),
  started_at: z.number(),
  uptime_s: z.number(),
  endpoints: z.object({ proxy: z.string().nullable(), admin: z.string().nullable(), dashboard: z.string().nullable(), bridge: z.string().nullable() }),
  weight_version: z.string().nullable(),
  weights_updating: z.boolean(),
  version_labels: z
    .object({ exact: z.boolean(), note: z.string().nullable() })
    .default({ exact: true, note: null })
    .describe("Whether the weight version each token is labelled with is exact; not on slime's FSDP backend (see version-labels.ts)."),
  last_weights_update: z
    .object({ at: z.number(), to_version: z.string(), duration_ms: z.number() })
    .nullable()
    .describe("duration_ms: an upper bound, the gap between the last poll of the engines that saw the old version and the first that saw the new one."),
  starting_weights: z
    .object({ kind: z.enum(["base", "checkpoint"]), path: z.string() })
    .nullable()
    .default(null)
    .describe("What the trainer starts from on this start: the base weights (model.path) or the checkpoint it resumes (training.load_dir); null for an external trainer."),
  last_version_reset: z
    .object({ at: z.number(), from_version: z.string(), reason: z.string() })
    .nullable()
    .default(null)
    .describe("The last time slime restarted and its weight versions began again at 0 (weights-version-reset)."),
  sessions: z.number().int().describe("Distinct sessions that sent a turn in this run."),
  turns: z.object({ main: z.number().int(), side: z.number().int() }),
  clients: z
    .array(
      z.object({
        client: z.string().describe("The client by its User-Agent's product name (codex_exec for `codex exec`, claude-cli, QwenCode, OpenAI/JS for OpenClaw's SDK)."),
        main_turns: z.number().int(),
        asked_otherwise: z.number().int().describe("Main turns whose client asked for sampling settings the proxy did not use (sampling.client_settings: trainer): they were drawn from the trainer's distribution instead."),
        off_policy: z.number().int().describe("Main turns drawn off the trainer's distribution (honoured client settings, a tool_choice grammar): recorded, never trained."),
        asked: z.record(z.string(), z.number().int()).describe("Of those, how many asked for each setting (temperature, top_p, presence_penalty, …)."),
      }),
    )
    .default([])
    .describe("Main turns per client and the sampling they asked for (docs/proxy.md: main turns are sampled from the trainer's distribution)."),
  evaluation: z
    .object({
      configured: z.boolean().describe("Whether start evaluates the held-out set as the version advances (evaluation.every_versions > 0)."),
      every_versions: z.number().int(),
      stop_if_worse: z.boolean().default(false).describe("Whether a version significantly below the best pauses training (evaluation.stop_if_worse)."),
      base_version: z.string().nullable(),
      best: z
        .object({ version: z.string(), mean_score: z.number(), score_ci: z.object({ low: z.number(), high: z.number() }).nullable() })
        .nullable()
        .default(null)
        .describe("The evaluated version with the highest held-out mean score so far (the earliest of equal ones): what `convert-checkpoint --best` exports."),
      versions: z
        .array(
          z.object({
            at: z.number(),
            version: z.string(),
            version_at_end: z.string().describe("The version served when it ended: another than `version` when training went on meanwhile."),
            mean_score: z.number().nullable(),
            score_ci: z.object({ low: z.number(), high: z.number() }).nullable(),
            win_rate: z.number().nullable().describe("Paired against the base on the same openers: P(score > base's), ties counting half."),
            win_rate_ci: z.object({ low: z.number(), high: z.number() }).nullable(),
            outcome_rate: z.number().nullable().describe("Held-out tasks' outcome rate (general agents)."),
            outcome_ci: z.object({ low: z.number(), high: z.number() }).nullable(),
            requests: z.number().int().describe("Engine requests the evaluation cost (policy, simulator, scorer)."),
            run: z.string().nullable().default(null).describe("The run whose evaluation it is; on the base, another than run_id: an earlier run's base, reused (the same base weights and evaluation plan)."),
            base: z.boolean().default(false).describe("The base weights' own evaluation (v0), which win_rate pairs against; always the first."),
          }),
        )
        .describe("One point per evaluated weight version, 95% intervals (docs/evaluation.md). Never mixed with the training reward."),
    })
    .default({ configured: false, every_versions: 0, stop_if_worse: false, base_version: null, best: null, versions: [] })
    .describe("Held-out evaluation per weight version: is it improving?"),
  training: z
    .object({
      paused: z.boolean(),
      since: z.number().nullable(),
      message: z.string().nullable().describe("Why: \"held-out score of version N (x% [CI]) significantly below best version M (y% [CI]): …\"."),
      resume: z.string().nullable().describe("How to resume: the CLI command for this run folder, or POST /training/resume on the admin API."),
    })
    .default({ paused: false, since: null, message: null, resume: null })
    .describe("Training paused by evaluation.stop_if_worse: the trainer is handed no new batch; the proxy keeps serving and samples keep being made."),
  samples: z
    .object({
      made: z.number().int().describe("Stored by this run's judging: the judged turns with a sample (judging.judged = samples.made + judging.without_sample)."),
      from_earlier_runs: z.number().int().describe("Left in the records folder's store by earlier runs when this run opened it (ready, or out to a trainer): trained or dropped in this run."),
      ready: z.number().int().describe("Toward the next batch: stored, not handed out."),
      in_training: z.number().int().describe("Handed to the trainer and not acknowledged yet."),
      trained: z.number().int().describe("Acknowledged by the rollout function once slime trained them."),
      dropped: z.object({ stale: z.number().int(), invalid: z.number().int() }).describe("Dropped untrained, by reason (stale: more than training.max_staleness weight versions behind)."),
      delivered: z.number().int().describe("Every sample handed to the trainer, re-deliveries included: a count of hand-outs, not a part of the sum."),
      batch_size: z.number().int(),
      held_back: z
        .object({
          since: z.number(),
          active_sessions: z.number().int().nullable().describe("Sessions with a sample ready (the share fits them)."),
          per_session: z.number().int().describe("The most of one session's samples a batch takes now."),
          max_session_share: z.number(),
          relax_after_s: z.number(),
          sessions: z
            .array(z.object({ session: z.string(), ready: z.number().int() }))
            .default([])
            .describe("The sessions (or an episode's task group) over the share, with their ready samples, most first (at most 3)."),
          completes_at: z.number().nullable().default(null).describe("When the held-back samples complete a batch (relax_after_s after the oldest was ready)."),
        })
        .nullable()
        .default(null)
        .describe("A batch's worth is ready, yet the trainer waits: no batch within one session's share (training.fair_batch) since `since`; null once a batch left."),
    })
    .describe("Where every sample is, one sum at every moment: made + from_earlier_runs = ready + in_training + trained + dropped.stale + dropped.invalid."),
  records_folder: z
    .object({ samples_trained: z.number().int(), dropped_stale: z.number().int() })
    .nullable()
    .default(null)
    .describe("Since the records folder was created (the durable store's totals, earlier runs included); null without a store."),
  progress: z
    .object({
      episodes_done: z.number().int().nullable(),
      episodes_planned: z.number().int().nullable(),
      weight_version: z.string().nullable(),
      batches_trained: z.number().int(),
      finished: z.boolean().nullable().describe("Every planned episode finished; null where no end is planned (chat)."),
      eta_ms: z.number().nullable().describe("Until the planned episodes are done, from the pace so far; null with no end or no pace yet."),
    })
    .default({ episodes_done: null, episodes_planned: null, weight_version: null, batches_trained: 0, finished: null, eta_ms: null })
    .describe("Where the run stands."),
  batches: z.number().int().describe("Batches trained (acknowledged)."),
  batches_delivered: z
    .number()
    .int()
    .default(0)
    .describe("Every batch handed to the trainer, re-deliveries included (a batch a dead trainer held comes again as a new batch)."),
  last_batch_at: z.number().nullable().describe("When the last batch was delivered."),
  rewards: z.object({ count: z.number().int(), mean: z.number().nullable(), positive: z.number().int(), zero: z.number().int(), negative: z.number().int() }),
  judging: z
    .object({
      judged: z.number().int().describe("Main turns whose judging ended: samples.made + without_sample (a turn judged again after feedback counts once)."),
      without_sample: z.number().int(),
      skipped: z.record(z.string(), z.number().int()).default({}).describe(`The turns without a sample by reason (${SKIP_CATEGORIES.join(", ")}); keys are kept as strings so a newer server's reason still parses.`),
      waiting: z.number().int(),
      open: z.number().int().default(0).describe("Main turns answered and not closed yet: each waits for its session's next message, or is closed with no next state once the session idles (proxy.session_idle_timeout_s)."),
    })
    .describe("Main turns judged, those of them that made no sample (by reason), and closed turns not judged yet (a judge falling behind shows here)."),
  episodes: z
    .object({
      running: z.number().int(),
      finished: z.number().int(),
      failed: z.number().int().describe("Finished without a score (the environment's evaluation failed)."),
      outcome_rate: z.number().nullable().describe("Mean score in [0, 1] of the scored episodes (the success rate where scores are 0 or 1)."),
      by_group: z.record(z.string(), outcomeRateSchema).describe("Per task group (the most recent groups)."),
      by_version: z.record(z.string(), outcomeRateSchema).describe("Per weight version of each episode's last step."),
      planned: z.number().int().nullable().default(null).describe("Episodes this run plans (tasks × samples per task × epochs); null: none planned."),
    })
    .default({ running: 0, finished: 0, failed: 0, outcome_rate: null, by_group: {}, by_version: {}, planned: null })
    .describe("General-agent episodes (requests with X-Episode-Id, or the episode driver)."),
  trainer: z
    .object({
      step: z.number().int().nullable().describe("slime's train/step of the last training step logged (Megatron backend)."),
      loss: z.number().nullable(),
      grad_norm: z.number().nullable(),
      logprob_diff: z.number().nullable().describe("train_rollout_logprob_abs_diff: mean |log p_train − log p_rollout| over the step's response tokens."),
      lr: z.number().nullable(),
      last_step_at: z.number().nullable(),
      last_progress_at: z.number().nullable().describe("The last step, batch delivered or acknowledged, or trainer restart."),
      stalled: z.boolean().describe("TRAINER_STALLED: a full batch waited longer than training.stall_after_s with no progress."),
      stalled_since: z.number().nullable(),
      entropy: z
        .object({ value: z.number(), source: z.enum(ENTROPY_SOURCES) })
        .nullable()
        .default(null)
        .describe("The policy's mean entropy per response token at the last step, and who computed it: openclaw_rl (our losses), or slime's own entropy_loss where none of ours ran (wrong on the fork without an entropy term)."),
    })
    .default({ step: null, loss: null, grad_norm: null, logprob_diff: null, lr: null, last_step_at: null, last_progress_at: null, stalled: false, stalled_since: null, entropy: null })
    .describe("The trainer's last logged step and its progress."),
  hybrid: z
    .object({
      cases: z.record(z.string(), z.number().int()).describe("Judged turns per dispatch case: hint-and-evaluation, hint-only, evaluation-only, neither (docs/judging.md#hybrid)."),
      candidates_per_turn: z.number().nullable().describe("Mean hint candidates per hybrid sample made."),
      samples: z.number().int(),
      k_star: z.number().nullable().describe("sel_k_star_mean at the trainer's last step: the chosen candidate's mean index."),
      overlap_at_k_star: z.number().nullable().describe("sel_overlap_at_k_star: the student's and the chosen teacher's top-K overlap."),
      subset_size: z.number().nullable().describe("opd_subset_size: |S_t|, the distillation term's vocabulary subset."),
    })
    .nullable()
    .default(null)
    .describe("method hybrid's own numbers; null for other methods."),
  checkpoints: z
    .array(
      z.object({
        iteration: z.number().int().describe("slime's iteration (the rollout id): the weights after iteration + 1 training steps."),
        path: z.string(),
        bytes: z.number().int(),
        saved_at: z.number(),
        latest: z.boolean().describe("The newest one listed: what convert-checkpoint takes by default."),
      }),
    )
    .default([])
    .describe("Checkpoints slime saved in training.save_dir and the orchestrator kept (newest first)."),
  learning_latency: z
    .object({
      samples: z.number().int().describe("Trained samples served in the weights that the figures are over: the last `window` of them."),
      window: z.number().int(),
      stages: z.object(Object.fromEntries(LEARNING_LATENCY_STAGES.map((stage) => [stage, spreadSchema])) as Record<(typeof LEARNING_LATENCY_STAGES)[number], typeof spreadSchema>),
      awaiting_serve: z.number().int().describe("Trained samples whose weights the engines do not serve yet."),
      last_served_update_at: z.number().nullable().describe("When the policy engines last finished a weight update."),
    })
    .default({ samples: 0, window: 0, stages: { closed: null, judged: null, handed: null, trained: null, served: null, total: null }, awaiting_serve: 0, last_served_update_at: null })
    .describe("How soon it learns (docs/supervision.md): per trained sample, ms from each stage to the next — answer → closed → judged → handed to the trainer → trained → served — and the whole (total), median and p90."),
  engines: z.array(z.object({ name: z.string(), state: engineStateSchema, detail: z.string() })),
  errors: z.array(z.object({ at: z.number(), source: z.string(), code: z.string(), message: z.string(), hint: z.string().optional() })),
});

export type StatusSnapshot = z.infer<typeof statusSnapshotSchema>;
