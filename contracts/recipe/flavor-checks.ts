// What one slime flavour cannot do (engine.kind slime), refused before anything starts, each check named by the YAML
// path it guards. Upstream's parser drops options it does not know, so a fork-only option would vanish silently there.
import { type RecipeCheck, when } from "./recipe-check.ts";
import type { ResolvedRecipe } from "./resolved-recipe.ts";

const onFlavor = (recipe: ResolvedRecipe, flavor: "fork" | "upstream"): boolean => recipe.engine.kind === "slime" && recipe.engine.slime.flavor === flavor;

export const flavorChecks: readonly RecipeCheck[] = [
  [
    "training.max_wait_s",
    (recipe) => {
      if (recipe.engine.kind !== "slime" || recipe.training.max_wait_s === 0) return null;
      if (recipe.engine.slime.flavor === "upstream") {
        return "engine.slime.flavor upstream cannot train a batch shorter than training.batch_size (its data-parallel schedule asserts at least one full global batch, and it has no --use-dynamic-global-batch-size); set training.max_wait_s: 0, or use engine.slime.flavor: fork with training.backend: megatron";
      }
      if (recipe.derived.trainingBackend !== "fsdp") return null;
      return "slime's FSDP backend splits and scales every step by the static global batch size, so a partial batch would be mis-split or mis-scaled; set training.max_wait_s: 0, or use training.backend: megatron (full weights)";
    },
  ],
  [
    "engine.slime.stream_output_flag",
    (recipe) =>
      when(
        onFlavor(recipe, "fork") && recipe.engine.slime.stream_output_flag === "--sglang-incremental-streaming-output",
        "engine.slime.flavor fork: the fork's SGLang (dce8b060) has no --sglang-incremental-streaming-output, so its parser would reject it; use --sglang-stream-output (the fork's default) or none",
      ),
  ],
  [
    "training.lora",
    (recipe) =>
      when(
        onFlavor(recipe, "upstream") && recipe.training.lora !== undefined,
        "engine.slime.flavor upstream has no LoRA: LoRA lives in the fork's FSDP backend, and upstream's --train-backend accepts only megatron; remove training.lora to train full weights with Megatron, or use engine.slime.flavor: fork",
      ),
  ],
  [
    "training.backend",
    (recipe) =>
      when(
        onFlavor(recipe, "upstream") && recipe.training.lora === undefined && recipe.derived.trainingBackend === "fsdp",
        "engine.slime.flavor upstream trains with Megatron only (its --train-backend accepts only megatron); use training.backend: megatron, or engine.slime.flavor: fork",
      ),
  ],
  [
    "opd.topk",
    (recipe) =>
      when(
        onFlavor(recipe, "upstream") && recipe.opd.topk > 0,
        "engine.slime.flavor upstream hands only teacher_log_probs to the loss (its rollout manager converts no top-K arrays), so top-K distillation cannot run there; use opd.topk: 0 (token-level OPD through upstream's --use-opd), or engine.slime.flavor: fork",
      ),
  ],
  [
    "judge.launch",
    (recipe) =>
      when(
        onFlavor(recipe, "upstream") && recipe.judge.launch === "slime",
        "engine.slime.flavor upstream has no --prm-* options (they are the fork's; upstream would drop them and no judge would run); use judge.launch: standalone (an SGLang server on the PRM GPUs) or external, or engine.slime.flavor: fork",
      ),
  ],
];
