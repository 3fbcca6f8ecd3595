// The checkpoints in a slime save folder as Megatron writes them: `iter_%07d` folders and the tracker file
// `latest_checkpointed_iteration.txt` that names the last one written completely. Ignores what is in the shards.
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * Megatron writes the iteration's folder first and the tracker last, once every rank finished
 * (tests/fixtures/checkpoint-facts.json, tracker_written_last), so an `iter_*` folder above the tracker's iteration is
 * still being written (or its save died).
 */
export const TRACKER_FILE = "latest_checkpointed_iteration.txt";
const ITERATION_FOLDER = /^iter_(\d{7,})$/;

export interface CheckpointEntry {
  /** slime saves with iteration = rollout_id (0-based): iter_0000004 holds the weights after 5 training steps. */
  iteration: number;
  folder: string;
  /** The folder's last modification (ms epoch): when the save ended. */
  modifiedAt: number;
  /** Bytes of every file under it. */
  bytes: number;
  /** The iteration the tracker names. */
  latest: boolean;
  /** Above the tracker's iteration (or no tracker yet): still being written, or a save that died. */
  inProgress: boolean;
}

export function iterationFolderName(iteration: number): string {
  return `iter_${String(iteration).padStart(7, "0")}`;
}

/** The iteration the tracker names; null without a tracker or with `release` (a converted checkpoint, no iterations). */
export function trackedIteration(saveDir: string): number | null {
  const tracker = path.join(saveDir, TRACKER_FILE);
  if (!existsSync(tracker)) return null;
  const text = readFileSync(tracker, "utf8").trim();
  return /^\d+$/.test(text) ? Number(text) : null;
}

/** Every `iter_*` folder of `saveDir`, newest iteration first; [] when the folder does not exist yet. */
export function listCheckpoints(saveDir: string): CheckpointEntry[] {
  if (!existsSync(saveDir)) return [];
  const tracked = trackedIteration(saveDir);
  const entries: CheckpointEntry[] = [];
  for (const name of readdirSync(saveDir)) {
    const match = ITERATION_FOLDER.exec(name);
    const folder = path.join(saveDir, name);
    if (!match || !lstatSync(folder).isDirectory()) continue;
    const iteration = Number(match[1]);
    entries.push({
      iteration,
      folder,
      modifiedAt: newestModification(folder),
      bytes: bytesUnder(folder),
      latest: iteration === tracked,
      inProgress: tracked === null || iteration > tracked,
    });
  }
  return entries.sort((left, right) => right.iteration - left.iteration);
}

function bytesUnder(folder: string): number {
  let total = 0;
  for (const name of readdirSync(folder, { recursive: true, encoding: "utf8" })) {
    const stat = lstatSync(path.join(folder, name));
    if (stat.isFile()) total += stat.size;
  }
  return total;
}

function newestModification(folder: string): number {
  let newest = statSync(folder).mtimeMs;
  for (const name of readdirSync(folder, { recursive: true, encoding: "utf8" })) newest = Math.max(newest, lstatSync(path.join(folder, name)).mtimeMs);
  return Math.round(newest);
}
