// The checks that need several recipe keys at once, each named by the YAML path it guards and run in this order.
// Ignores one slime flavour's limits (flavor-checks.ts), GPU placement (launchers/placement.ts) and the installation.
import type { z } from "zod";
import { flavorChecks } from "./flavor-checks.ts";
import { usesOpdTeacher } from "./method.ts";
import { type RecipeCheck, when } from "./recipe-check.ts";
import type { ResolvedRecipe } from "./resolved-recipe.ts";

const CROSS_CHECKS: readonly RecipeCheck[] = [
  ["evaluation.tasks", (recipe) => when(recipe.evaluation.tasks !== undefined && !recipe.derived.episodesOn, "held-out tasks run in the episodes' environment: set episodes.env_url or episodes.environment, or remove evaluation.tasks")],
  ["evaluation.stop_if_worse", (recipe) => when(recipe.evaluation.stop_if_worse && recipe.evaluation.every_versions === 0, "the guard compares the versions continuous evaluation scores: set evaluation.every_versions > 0, or stop_if_worse: false")],
  ["evaluation.stop_if_worse", (recipe) => when(recipe.evaluation.stop_if_worse && recipe.sink.kind === "jsonl", "with sink.kind jsonl no trainer takes batches from the bridge, so there is no training to pause: use sink.kind bridge, or stop_if_worse: false")],
  ["episodes.tasks", (recipe) => when(Boolean(recipe.episodes.env_url) && !recipe.episodes.tasks, "episodes.env_url is set, so episodes.tasks (a JSONL file of tasks) is required")],
  ["episodes.environment", (recipe) => when(Boolean(recipe.episodes.env_url && recipe.episodes.environment), "set episodes.env_url (your environment server) or episodes.environment (a built-in one that start runs), not both")],
  [
    "episodes.env_protocol",
    ({ episodes }) => when(Boolean(episodes.environment) && episodes.env_protocol !== "lease", `the built-in ${episodes.environment} environment speaks the lease protocol: env_protocol ${episodes.env_protocol} is for episodes.env_url (the reference's GUI or SWE pool)`),
  ],
  ["method", (recipe) => when(recipe.derived.episodesOn && recipe.method === "opd", "episodes are trained with step rewards (the RL term): use method binary or combine with episodes; opd has no reward term")],
  [
    "method",
    (recipe) =>
      when(recipe.derived.episodesOn && recipe.method === "hybrid", "episodes are trained with step rewards standardised per task group, which the hybrid's samples (a turn's votes and hint candidates) do not carry: use method binary or combine with episodes"),
  ],
  // the rehearsal's stand-ins replace every engine and the judge
  ["judge.url", (recipe) => when(recipe.engine.kind !== "rehearsal" && recipe.judge.launch === "external" && recipe.derived.judgeUrl === null, "judge.launch is external, so judge.url (an SGLang base URL) is required")],
  ["engine.policy_url", (recipe) => when(recipe.engine.kind === "external" && !recipe.engine.policy_url, "engine.kind is external, so engine.policy_url (the policy SGLang base URL) is required")],
  ["judge.launch", (recipe) => when(recipe.engine.kind === "external" && recipe.judge.launch !== "external" && !recipe.engine.judge_url, "engine.kind is external, so the judge must be external too: set judge.launch: external and judge.url")],
  ["sink.path", (recipe) => when(recipe.sink.kind === "jsonl" && !recipe.sink.path, "sink.kind is jsonl, so sink.path (a JSONL file) is required")],
  [
    "sink.kind",
    (recipe) =>
      when(recipe.sink.kind === "jsonl" && recipe.engine.kind === "slime", "slime trains from the bridge, so engine.kind slime needs sink.kind bridge; to collect samples for later, serve the policy yourself with engine.kind: external and sink.kind: jsonl"),
  ],
  ["training.eps_clip_high", ({ training }) => when(training.eps_clip_high < training.eps_clip, `must be >= training.eps_clip (${training.eps_clip})`)],
  ["opd.topk", (recipe) => when(recipe.method === "binary" && recipe.opd.topk > 0, "top-K distillation needs method opd (binary has no teacher)")],
  ["opd.topk", (recipe) => when(recipe.method === "combine" && recipe.opd.topk > 0, "top-K distillation is an opd loss; combine uses token-level teacher log-probs (set opd.topk: 0 or method: opd)")],
  ["opd.topk", (recipe) => when(recipe.method === "hybrid" && recipe.opd.topk > 0, "method hybrid takes its top-K width from hybrid.topk; opd.topk is opd's (remove it, or set hybrid.topk)")],
  [
    "opd.teacher_temperature",
    (recipe) =>
      when(
        usesOpdTeacher(recipe.method) && recipe.opd.teacher_temperature === undefined && recipe.sampling.temperature < 0.01,
        `sampling.temperature is ${recipe.sampling.temperature} (greedy or nearly), which gives the teacher no temperature to score at; set opd.teacher_temperature (at least 0.01)`,
      ),
  ],
  [
    "sampling.top_p",
    ({ sampling }) =>
      when(
        sampling.top_p !== 1,
        `is ${sampling.top_p}: main turns are trained on log-probs slime recomputes with no top-p filter (the fork's and upstream's get_responses apply only --rollout-temperature; upstream's top-p replay needs its patched SGLang), so they must be sampled with none; set sampling.top_p: 1`,
      ),
  ],
  ["sampling.top_k", ({ sampling }) => when(sampling.top_k !== -1, `is ${sampling.top_k}: main turns are trained on log-probs slime recomputes with no top-k filter, so they must be sampled with none; set sampling.top_k: -1`)],
  ["combine", (recipe) => when(recipe.method === "combine" && recipe.combine.w_rl === 0 && recipe.combine.w_opd === 0, "combine.w_rl and combine.w_opd are both 0: nothing would be learned")],
  [
    "training.kl_coef",
    (recipe) =>
      when(
        recipe.method === "opd" && recipe.opd.topk > 0 && recipe.training.kl_coef > 0,
        "training.kl_coef > 0 has no effect with top-K distillation (opd.topk > 0): slime computes no reference log-probs when it computes no advantages, and the top-K loss has no KL term; set training.kl_coef: 0 (or opd.topk: 0 for token-level OPD with a KL term)",
      ),
  ],
  [
    "opd.teacher",
    ({ opd, method, derived }) =>
      when(
        opd.teacher === "trainer" && usesOpdTeacher(method) && derived.trainerTeacherGap !== null,
        `the trainer cannot compute the teacher here: ${derived.trainerTeacherGap}; use opd.teacher: engine (the judge engine scores the hinted turns)`,
      ),
  ],
  [
    "hybrid.teacher",
    ({ method, derived }) =>
      when(
        method === "hybrid" && derived.hybridTrainerGap !== null,
        `method hybrid needs the trainer's frozen teacher to score every hint candidate, and it cannot here: ${derived.hybridTrainerGap}; change that, or use method: combine (whose teacher can be the judge engine)`,
      ),
  ],
  [
    "engine.slime.extra_args",
    (recipe) =>
      when(
        recipe.method === "hybrid" && recipe.engine.slime.extra_args.includes("--use-rollout-logprobs"),
        "method hybrid compares the teacher with the trainer's own old log-probs, which --use-rollout-logprobs replaces with the engine's (the hybrid loss refuses it, as the reference's asserts); remove it",
      ),
  ],
  ["hybrid", (recipe) => when(recipe.method === "hybrid" && recipe.hybrid.w_rl === 0 && recipe.hybrid.w_opd === 0, "hybrid.w_rl and hybrid.w_opd are both 0: nothing would be learned")],
  ["training.kl_coef", ({ training }) => when(training.kl_coef > 0 && !training.use_kl_loss, "training.kl_coef > 0 needs training.use_kl_loss: true (the KL term needs the reference model)")],
  ["training.backend", (recipe) => when(recipe.derived.trainingBackend === "megatron" && recipe.training.lora !== undefined, "LoRA needs the fsdp backend in slime (set training.backend: fsdp or remove training.lora)")],
  [
    "training.backend",
    (recipe) =>
      when(
        recipe.derived.trainingBackend === "fsdp" && recipe.method !== "binary",
        `slime's FSDP backend ignores custom losses and teacher fields, so method ${recipe.method} would silently train plain GRPO; use training.backend: megatron (full weights) or method: binary`,
      ),
  ],
  ...flavorChecks,
];

/** Adds one issue, at its YAML path, for each cross-field check the recipe breaks. */
export function checkRecipe(recipe: ResolvedRecipe, context: z.RefinementCtx<ResolvedRecipe>): void {
  for (const [path, problem] of CROSS_CHECKS) {
    const message = problem(recipe);
    if (message !== null) context.addIssue({ code: "custom", path: path.split("."), message });
  }
}
