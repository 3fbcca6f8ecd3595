// The command that turns one checkpoint of a run into a Hugging Face folder with slime's own converter: which
// checkpoint, which converter of the installed flavour, its argv and environment, and what is missing to run it.
// Ignores running it (checkpoint-conversion-run.ts).
import { existsSync } from "node:fs";
import path from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { ProcessSpec } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { iterationFolderName, listCheckpoints } from "../../lib/checkpoints/checkpoint-list.ts";
import { slimePythonPath } from "./slime-job.ts";
import { insideRunDir } from "./train-args.ts";

/**
 * slime's converters, relative to engine.slime.root (the folder that holds train_async.py), with the options they
 * take (where each is read, per flavour and commit: tests/fixtures/checkpoint-facts.json, converters):
 *  - Megatron torch_dist → HF: tools/convert_torch_dist_to_hf.py --input-dir <iter_%07d> --output-dir <new folder>
 *    --origin-hf-dir <HF model> (names the params from its config.json and copies tokenizer and config), both flavours.
 *  - the fork's FSDP → HF: tools/convert_fsdp_to_hf.py with the same three options (it finds `model/` inside).
 * Both refuse an output folder that exists unless given --force.
 */
export const CONVERTERS = {
  megatron: "tools/convert_torch_dist_to_hf.py",
  fsdp: "tools/convert_fsdp_to_hf.py",
} as const;

export interface ConversionRequest {
  runDir: string;
  /** The checkpoint's iteration; default: the one slime's tracker names. */
  iteration?: number;
  outDir: string;
  /** openclaw-rl's own folder (for the job's PYTHONPATH). */
  packageRoot: string;
}

export interface ConversionPlan {
  spec: ProcessSpec;
  saveDir: string;
  iteration: number | null;
  converter: string;
  outDir: string;
  /** What stops it from running here, each a typed error with its hint (empty: it can run). */
  missing: OpenclawRlError[];
}

export function planCheckpointConversion(recipe: Recipe, request: ConversionRequest): ConversionPlan {
  const slime = recipe.engine.slime;
  const backend = recipe.derived.trainingBackend;
  const saveDir = insideRunDir(request.runDir, recipe.training.save_dir);
  const outDir = path.resolve(request.outDir);
  const converter = path.join(slime.root, CONVERTERS[backend]);
  const missing: OpenclawRlError[] = [];
  const iteration = request.iteration ?? latestIteration(saveDir);
  const inputDir = path.join(saveDir, iteration === null ? "iter_<none yet>" : iterationFolderName(iteration));
  if (!existsSync(converter)) {
    missing.push(
      new OpenclawRlError("CONVERTER_MISSING", `slime's converter ${converter} is not there: slime is not installed at engine.slime.root (${slime.root})`, {
        path: "engine.slime.root",
        hint: `install slime (flavour ${slime.flavor}) there, or set engine.slime.root to the folder that holds train_async.py and ${CONVERTERS[backend]}`,
      }),
    );
  }
  if (iteration === null || !existsSync(inputDir)) {
    missing.push(
      new OpenclawRlError("CHECKPOINT_MISSING", iteration === null ? `no complete checkpoint in ${saveDir} yet` : `no checkpoint ${inputDir}`, {
        path: "training.save_dir",
        hint: "`npx openclaw-rl status` lists the checkpoints of a run; pass --iteration with one of them, or --run with the run's folder",
      }),
    );
  }
  if (existsSync(outDir)) {
    missing.push(new OpenclawRlError("PATH_UNWRITABLE", `${outDir} already exists (slime's converter refuses to write into it)`, { path: "--out", hint: "name a folder that does not exist yet" }));
  }
  const argv = [slime.python, CONVERTERS[backend], "--input-dir", inputDir, "--output-dir", outDir, "--origin-hf-dir", recipe.model.path];
  const env = { PYTHONPATH: slimePythonPath(recipe, request.packageRoot), PYTHONUNBUFFERED: "1", ...slime.env };
  return { spec: { name: "convert-checkpoint", role: "checkpoint-converter", node: 0, argv, env, cwd: slime.root }, saveDir, iteration, converter, outDir, missing };
}

/** The iteration the tracker names, else the newest complete one; null when none. */
function latestIteration(saveDir: string): number | null {
  const entries = listCheckpoints(saveDir).filter((entry) => !entry.inProgress);
  return (entries.find((entry) => entry.latest) ?? entries[0])?.iteration ?? null;
}
