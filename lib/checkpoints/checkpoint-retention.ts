// Which checkpoints of a save folder to delete so that `keep` complete ones remain: the newest complete iterations
// stay, the one the tracker names always stays, and a folder still being written (above the tracker) is never touched.
import { rmSync } from "node:fs";
import { listCheckpoints, type CheckpointEntry } from "./checkpoint-list.ts";

/**
 * Megatron's own `--save-retain-interval` keeps multiples of an interval, not the newest N, and it deletes only a
 * previous iteration > 0 that is not such a multiple (tests/fixtures/checkpoint-facts.json, megatron_retention); slime
 * saves iteration = rollout_id, so it is no retention count. This one is ours.
 */
export function checkpointsToPrune(entries: CheckpointEntry[], keep: number): CheckpointEntry[] {
  const complete = entries.filter((entry) => !entry.inProgress).sort((left, right) => right.iteration - left.iteration);
  return complete.slice(keep).filter((entry) => !entry.latest);
}

/** Deletes what `checkpointsToPrune` names in `saveDir`; returns the deleted entries. */
export function pruneCheckpoints(saveDir: string, keep: number): CheckpointEntry[] {
  const doomed = checkpointsToPrune(listCheckpoints(saveDir), keep);
  for (const entry of doomed) rmSync(entry.folder, { recursive: true, force: true });
  return doomed;
}
