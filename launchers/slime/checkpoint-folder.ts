// Whether a checkpoint folder holds something slime can resume from: the tracker file naming the latest iteration
// and that iteration's folder. Ignores what is inside the shards (slime's own loader reads those).
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * What each loader looks for (file:line at Gen-Verse/OpenClaw-RL 0d034dd5 unless named otherwise):
 *  - Megatron: `latest_checkpointed_iteration.txt` holding an iteration number or `release`
 *    (Megatron-LM/megatron/training/checkpointing.py:270-290 read_metadata), then the folder `iter_%07d` or `release`.
 *    Without the tracker the fork's bridge mode falls back to loading the Hugging Face weights when the folder is not
 *    empty, and dies in `assert Path(load_path).exists() and _is_dir_nonempty(...)` when it is missing or empty
 *    (slime/slime/backends/megatron_utils/checkpoint.py:102-126). Upstream (THUDM/slime 624b824 arguments.py:1817-1839)
 *    quietly starts again from --ref-load.
 *  - The fork's FSDP: the same tracker (an iteration number), then `iter_%07d/model`; anything less is skipped with a
 *    log line (slime/slime/backends/fsdp_utils/checkpoint.py:84-109).
 */
export const TRACKER_FILE = "latest_checkpointed_iteration.txt";

export type CheckpointState = { kind: "loadable"; iteration: number | "release"; folder: string } | { kind: "none"; why: string };

export function checkpointIn(folder: string, backend: "megatron" | "fsdp"): CheckpointState {
  const tracker = path.join(folder, TRACKER_FILE);
  if (!isFile(tracker)) return { kind: "none", why: `no ${TRACKER_FILE} in ${folder}` };
  const text = readFileSync(tracker, "utf8").trim();
  const iteration = /^\d+$/.test(text) ? Number(text) : text === "release" && backend === "megatron" ? "release" : null;
  if (iteration === null) return { kind: "none", why: `${tracker} holds ${JSON.stringify(text)}, not an iteration number` };
  const iterationFolder = path.join(folder, iteration === "release" ? "release" : `iter_${String(iteration).padStart(7, "0")}`);
  const needed = backend === "fsdp" ? path.join(iterationFolder, "model") : iterationFolder;
  if (!isDirectory(needed)) return { kind: "none", why: `${tracker} names iteration ${iteration}, but ${needed} is missing` };
  return { kind: "loadable", iteration, folder: iterationFolder };
}

function isFile(file: string): boolean {
  return existsSync(file) && statSync(file).isFile();
}

function isDirectory(folder: string): boolean {
  return existsSync(folder) && statSync(folder).isDirectory();
}
