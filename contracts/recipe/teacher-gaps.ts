// Why the trainer cannot run a teacher's forward with a recipe (opd.teacher trainer, method hybrid), or null when it
// can. Ignores the teacher's placement when it can (derived.ts) and the checks that refuse a recipe (cross-checks.ts).
import type { RecipeSettings } from "./settings.ts";
import { trainingBackend } from "./training.ts";

/**
 * Why the trainer cannot compute the teacher's log-probs over the hinted prompt (opd.teacher: trainer) with this
 * recipe, or null when it can. On slime the teacher runs in the Megatron trainer (native/openclaw_rl/slime_teacher.py,
 * both flavours: native/tests/fixtures/slime_actor.json) over the --ref-load checkpoint at --rollout-temperature.
 */
export function trainerTeacherGap(recipe: RecipeSettings): string | null {
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
export function hybridTrainerGap(recipe: RecipeSettings): string | null {
  const noTrainer = noTrainerGap(recipe);
  if (noTrainer !== null) return noTrainer;
  // the rehearsal's stand-in trainer has the hybrid's loss (rehearsal/trainer/hybrid.py)
  if (recipe.engine.kind === "rehearsal") return null;
  return megatronTeacherGap(recipe);
}

/** Recipes where no trainer of ours takes the samples. */
function noTrainerGap(recipe: RecipeSettings): string | null {
  if (recipe.sink.kind === "jsonl") return "with sink.kind jsonl no trainer takes the samples, so nothing would score their teacher tokens";
  if (recipe.engine.kind === "external") return "engine.kind external runs no trainer of ours";
  return null;
}

/** What keeps slime's Megatron trainer from running a teacher's forward beside the student's. */
function megatronTeacherGap(recipe: RecipeSettings): string | null {
  if (trainingBackend(recipe) !== "megatron") return "the teacher's forward runs in slime's Megatron trainer; training.backend is fsdp";
  if (recipe.cluster.actor_cp > 1) return `cluster.actor_cp is ${recipe.cluster.actor_cp}: with context parallelism each rank's log-probs are its slice of the teacher's longer sequence, not of the student's`;
  return null;
}
