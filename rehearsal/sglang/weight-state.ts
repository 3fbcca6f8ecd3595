// The stand-in policy's weight state on disk (<run>/standin-policy/weight-state.json): the version it serves and its
// learned weights, written at every weight update and read at start. A stand-in restarted by the supervisor (kill -9)
// then serves what it served before, as a real engine restarted mid-run is given the trainer's current weights;
// otherwise it would come back at "default" with its learning lost, and every new turn would be stale. A state of
// another run is ignored: a new `start` begins from the base weights, as slime does without --load.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Responder } from "../model/responder.ts";

export const WEIGHT_STATE_FORMAT = "openclaw-rl-standin-weight-state/1";

const weightStateSchema = z.object({
  format: z.literal(WEIGHT_STATE_FORMAT),
  run_id: z.string(),
  weight_version: z.string(),
  /** What the Responder exported (the policy's style logits), null for a Responder without weights. */
  weights: z.unknown().nullable(),
  saved_at: z.number(),
});
export type WeightState = z.infer<typeof weightStateSchema>;

export interface WeightStateFile {
  file: string;
  /** The run (`start`) this state belongs to. */
  runId: string;
}

/** The state saved by this run, or null (none yet, or another run's). A file that is not a weight state throws. */
export function readWeightState(target: WeightStateFile): WeightState | null {
  let text: string;
  try {
    text = readFileSync(target.file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  let parsed: ReturnType<typeof weightStateSchema.safeParse>;
  try {
    parsed = weightStateSchema.safeParse(JSON.parse(text));
  } catch (error) {
    throw new Error(`${target.file} is not a stand-in weight state: ${(error as Error).message}`);
  }
  if (!parsed.success) throw new Error(`${target.file} is not a stand-in weight state: ${parsed.error.issues[0]?.message}`);
  return parsed.data.run_id === target.runId ? parsed.data : null;
}

/** Puts a saved state back: the Responder's weights (the caller serves the version). */
export function restoreWeights(state: WeightState, responder: Responder): void {
  if (state.weights !== null && state.weights !== undefined) responder.importWeights?.(state.weights);
}

/** Saves the version and the Responder's weights; written whole and renamed into place, so a kill leaves either. */
export function saveWeightState(target: WeightStateFile, weightVersion: string, responder: Responder): void {
  const state: WeightState = { format: WEIGHT_STATE_FORMAT, run_id: target.runId, weight_version: weightVersion, weights: responder.exportWeights?.() ?? null, saved_at: Date.now() };
  mkdirSync(path.dirname(target.file), { recursive: true });
  const temporary = `${target.file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state)}\n`);
  renameSync(temporary, target.file);
}
