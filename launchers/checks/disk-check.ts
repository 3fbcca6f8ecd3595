// Doctor: free space where records.dir lives (records, the sample store, logs and, for slime, checkpoints).
// Ignores quotas and the space other nodes have.
import { statfs } from "node:fs/promises";
import path from "node:path";
import type { Recipe } from "../../contracts/recipe.ts";
import { failed, passed, warned, type CheckResult } from "./check-result.ts";

const GIB = 1024 ** 3;
const MINIMUM_BYTES = 1 * GIB; // records and the sample store
const CHECKPOINT_BYTES = 50 * GIB; // a few full checkpoints of a 4B model with its optimizer state

/** `runDir`: records.dir made absolute. */
export async function checkDisk(recipe: Recipe, runDir: string): Promise<CheckResult> {
  const existing = await nearestExisting(runDir);
  const stats = await statfs(existing);
  const free = stats.bavail * stats.bsize;
  const where = `${(free / GIB).toFixed(1)} GiB free at ${existing} (records.dir ${recipe.records.dir})`;
  if (free < MINIMUM_BYTES) return failed("disk", where, "free some space or point records.dir at a larger disk");
  if (recipe.engine.kind === "slime" && free < CHECKPOINT_BYTES) {
    return warned("disk", `${where}; checkpoints (training.save_dir) may need ${CHECKPOINT_BYTES / GIB} GiB or more`, "point records.dir or training.save_dir at a larger disk");
  }
  return passed("disk", where);
}

async function nearestExisting(folder: string): Promise<string> {
  let current = folder;
  for (;;) {
    try {
      await statfs(current);
      return current;
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}
