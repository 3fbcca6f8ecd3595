// Whether a checkpoint folder holds something slime can resume from: the tracker file naming the latest iteration
// and that iteration's folder. Ignores what is inside the shards (slime's own loader reads those).
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// Megatron reads the tracker then `iter_%07d` (or `release`); the fork's FSDP `iter_%07d/model`. Each loader's lines, and
// what it does without a tracker: tests/fixtures/checkpoint-facts.json, `resume`.
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
