// The checks that need several recipe keys at once; each message names the YAML path it is about. Ignores GPU
// placement (launchers/placement.ts) and what the installed slime can do (launchers/checks/).
import type { z } from "zod";
import { episodesOn } from "./episodes.ts";
import { usesOpdTeacher } from "./method.ts";
import type { RecipeSettings } from "./settings.ts";
import { hybridTrainerGap, trainerTeacherGap } from "./teacher-gaps.ts";
import { trainingBackend } from "./training.ts";

/** Checks that need several keys at once; each message names the YAML path it is about. */
export function checkRecipe(recipe: RecipeSettings, context: z.RefinementCtx<RecipeSettings>): void {
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
}

/**
 * What one slime flavour cannot do, refused before anything starts. Upstream's Megatron parser ignores options it
 * does not know (THUDM/slime 624b824 parses with ignore_unknown_args), so a fork-only option there would be dropped
 * silently rather than rejected.
 */
function flavorIssues(recipe: RecipeSettings, backend: "megatron" | "fsdp", issue: (path: (string | number)[], message: string) => void): void {
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

