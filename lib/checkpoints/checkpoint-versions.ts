// Which served weight version a slime checkpoint iteration holds, within one slime process. Ignores restarts (a new
// process counts versions from 0 again, and the fork's rollout ids too): callers refuse where versions went down.

/**
 * slime's train_async.py (THUDM/slime and Gen-Verse/OpenClaw-RL 0d034dd5) pushes the loaded weights to the engines once
 * before the first rollout (`actor_model.update_weights()`, line 26: the updater adds 1 before each update, so version
 * 1 is the untrained weights), then for each rollout id r trains, saves `iter_r` when the save interval falls on r
 * (save_model(rollout_id), before the update), and updates the engines (update_weights_interval 1, slime's default,
 * which openclaw-rl never changes): version r + 2 serves the weights of iteration r.
 */
const FIRST_TRAINED_VERSION = 2;

/** The checkpoint iteration that holds the weights of `version`; null for 0 and 1 (the untrained weights: no iteration). */
export function iterationOfVersion(version: number): number | null {
  return Number.isInteger(version) && version >= FIRST_TRAINED_VERSION ? version - FIRST_TRAINED_VERSION : null;
}

/** The weight version that serves iteration `iteration`'s weights. */
export function versionOfIteration(iteration: number): number {
  return iteration + FIRST_TRAINED_VERSION;
}
