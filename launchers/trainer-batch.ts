// The trainer's batch against its data-parallel ranks: each slime step splits its batch evenly over them, so the
// batch size must divide by their number, and a partial batch (training.max_wait_s) needs a single rank. Ignores GPU ids.
import { OpenclawRlError } from "../contracts/errors.ts";
import type { Recipe } from "../contracts/recipe.ts";

/** The trainer's data-parallel size: Megatron's actor GPUs over tp × pp × cp; FSDP shards data over every one. */
export function trainerDataParallel(recipe: Recipe): number {
  const cluster = recipe.cluster;
  return recipe.derived.trainingBackend === "megatron" ? Math.max(1, Math.floor(cluster.actor_gpus / (cluster.actor_tp * cluster.actor_pp * cluster.actor_cp))) : cluster.actor_gpus;
}

/**
 * Megatron's micro-batch calculator and the FSDP actor both assert that the global batch divides by the
 * data-parallel size; the fork rounds a partial batch down to a multiple of it (the rest trimmed, untrained) and fails
 * on fewer samples (tests/fixtures/slime-batch-size.json).
 */
export function batchProblems(recipe: Recipe): OpenclawRlError[] {
  const dataParallel = trainerDataParallel(recipe);
  const { batch_size: batch, max_wait_s: maxWait } = recipe.training;
  const problems: OpenclawRlError[] = [];
  if (batch % dataParallel !== 0) {
    problems.push(
      new OpenclawRlError(
        "BATCH_MISALIGNED",
        `training.batch_size ${batch} is not a multiple of the trainer's data-parallel size ${dataParallel} (cluster.actor_gpus over actor_tp × actor_pp × actor_cp with Megatron, cluster.actor_gpus with FSDP): slime splits every step evenly over its ranks`,
        { path: "training.batch_size", hint: `set training.batch_size to a multiple of ${dataParallel}` },
      ),
    );
  }
  if (maxWait > 0 && dataParallel > 1) {
    problems.push(
      new OpenclawRlError(
        "BATCH_MISALIGNED",
        `training.max_wait_s with a trainer of data-parallel size ${dataParallel}: slime trains a partial batch only in multiples of ${dataParallel} (the rest would be dropped untrained) and fails on fewer samples`,
        { path: "training.max_wait_s", hint: "set training.max_wait_s: 0, or give the trainer data-parallel size 1 (cluster.actor_gpus = actor_tp × actor_pp × actor_cp)" },
      ),
    );
  }
  return problems;
}
