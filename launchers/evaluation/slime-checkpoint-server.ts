// The SGLang server `openclaw-rl eval --checkpoint` starts for a slime run: a Megatron (or FSDP) checkpoint converted to
// a Hugging Face folder first (convert-checkpoint), on rollout_tp GPUs of the head node that no running start holds.
// Refuses by name an iteration not saved, one not converted yet (with the command that converts it), and a head node
// without free GPUs.
import { existsSync } from "node:fs";
import path from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { iterationFolderName, listCheckpoints } from "../../lib/checkpoints/checkpoint-list.ts";
import { versionOfIteration } from "../../lib/checkpoints/checkpoint-versions.ts";
import { cliCommand, shellWord } from "../../lib/cli-command.ts";
import { planPlacement } from "../placement.ts";
import { sglangServerProcess } from "../sglang-server-process.ts";
import { huggingFaceFolderState } from "../slime/checkpoint-conversion-run.ts";
import { insideRunDir } from "../slime/train-args.ts";
import type { CheckpointRequest, CheckpointServing, GpuAvailability } from "./served-checkpoint.ts";

/** Where `convert-checkpoint` is told to write iteration N's Hugging Face folder, and where eval looks for it. */
export function convertedFolder(runDir: string, iteration: number): string {
  return path.join(runDir, "hf", iterationFolderName(iteration));
}

const ITERATION = /^(?:iter_)?(\d+)$/;

export function planSlimeCheckpointServer(recipe: Recipe, request: CheckpointRequest): CheckpointServing {
  if (request.checkpoint === "base") return baseWeightsServer(recipe, request);
  const runDir = request.context.runDir;
  const { folder, iteration } = huggingFaceCheckpoint(runDir, request.checkpoint);
  const state = huggingFaceFolderState(folder);
  if (!state.ready) {
    const saveDir = insideRunDir(runDir, recipe.training.save_dir);
    if (!existsSync(path.join(saveDir, iterationFolderName(iteration)))) {
      const saved = listCheckpoints(saveDir).map((entry) => entry.iteration);
      const dropped = saved.length > 0 && iteration < saved[saved.length - 1]!;
      const why = dropped ? `: retention dropped it (training.keep_checkpoints = ${recipe.training.keep_checkpoints} keeps the newest), or training.save_interval never fell on it` : "";
      throw new OpenclawRlError("CHECKPOINT_MISSING", `no checkpoint iteration ${iteration}${why}: neither ${path.join(saveDir, iterationFolderName(iteration))} nor its converted folder ${folder}`, {
        path: "--checkpoint",
        hint: saved.length > 0 ? `${saveDir} holds iterations ${saved.join(", ")}; base evaluates the base weights` : `${saveDir} holds no checkpoint yet (training.save_interval decides when slime saves); base evaluates the base weights`,
      });
    }
    const convert = cliCommand(`convert-checkpoint --run ${shellWord(runDir)} --iteration ${iteration} --out ${shellWord(convertedFolder(runDir, iteration))}`);
    throw new OpenclawRlError("EVALUATION_REFUSED", `iteration ${iteration} is not converted to Hugging Face yet (${state.detail}): SGLang loads only a Hugging Face folder`, {
      path: "--checkpoint",
      hint: `convert it first: \`${convert}\`, then \`${cliCommand(`eval --run ${shellWord(runDir)} --checkpoint ${iteration}`)}\``,
    });
  }
  return servingOf(recipe, request, String(versionOfIteration(iteration)), folder);
}

/**
 * `base`: the weights the run starts from, model.path (a Hugging Face folder or id, as the run's SGLang loads it), as
 * version 0. A run resumed from training.load_dir starts from that Megatron checkpoint instead, which SGLang cannot load.
 */
function baseWeightsServer(recipe: Recipe, request: CheckpointRequest): CheckpointServing {
  if (recipe.training.load_dir) {
    throw new OpenclawRlError("EVALUATION_REFUSED", `the run's base weights are training.load_dir's checkpoint (${recipe.training.load_dir}), which SGLang cannot load`, {
      path: "training.load_dir",
      hint: "convert it to a Hugging Face folder named after its iteration (convert-checkpoint) and pass that folder as --checkpoint",
    });
  }
  return servingOf(recipe, request, "0", recipe.model.path);
}

function servingOf(recipe: Recipe, request: CheckpointRequest, version: string, modelPath: string): CheckpointServing {
  const gpus = freeGpus(recipe, request.gpus ?? { startRunning: false });
  const spec = sglangServerProcess(recipe, {
    name: `checkpoint-policy-v${version}`,
    role: "checkpoint-server",
    modelPath,
    port: request.port,
    node: 0,
    gpus,
    tp: recipe.cluster.rollout_tp,
    dataParallel: 1,
    extraArgs: ["--served-model-name", recipe.model.served_name],
  });
  const url = `http://127.0.0.1:${request.port}`;
  return { version, checkpoint: modelPath, spec, url, readyUrl: `${url}/health_generate` };
}

/** `N`, `iter_000000N`, a path to iteration N's Megatron folder (under training.save) or to a converted folder named iter_000000N. */
function huggingFaceCheckpoint(runDir: string, checkpoint: string): { folder: string; iteration: number } {
  const byNumber = ITERATION.exec(checkpoint);
  if (byNumber) return { folder: convertedFolder(runDir, Number(byNumber[1])), iteration: Number(byNumber[1]) };
  const folder = path.resolve(checkpoint);
  const named = /iter_(\d+)$/.exec(path.basename(folder));
  if (!named) {
    throw new OpenclawRlError("EVALUATION_REFUSED", `${checkpoint}: its name says no checkpoint iteration (iter_NNNNNNN), so no weight version`, {
      path: "--checkpoint",
      hint: "pass the iteration (N or iter_NNNNNNN), or a converted folder named after it",
    });
  }
  const iteration = Number(named[1]);
  // a Megatron folder (no config.json) is looked up where convert-checkpoint writes its Hugging Face twin
  return { folder: existsSync(path.join(folder, "config.json")) ? folder : convertedFolder(runDir, iteration), iteration };
}

/** rollout_tp GPUs of the head node: any while no start runs, else the placement's idle ones; refused when too few. */
function freeGpus(recipe: Recipe, availability: GpuAvailability): number[] {
  const needed = recipe.cluster.rollout_tp;
  const head = planPlacement(recipe).nodes[0]!;
  const free = availability.startRunning ? head.idle : [...head.actor, ...head.rollout, ...head.prm, ...head.idle].sort((a, b) => a - b);
  if (free.length >= needed) return free.slice(0, needed);
  throw new OpenclawRlError("EVALUATION_REFUSED", `no GPU is free for the checkpoint's SGLang server: it needs cluster.rollout_tp = ${needed} on the head node, and the running start holds ${recipe.cluster.gpus_per_node - free.length} of its ${recipe.cluster.gpus_per_node} GPUs (${free.length} idle)`, {
    path: "cluster.gpus_per_node",
    hint: "evaluate the live version (`openclaw-rl eval --run DIR`), or evaluate the checkpoint once the start has stopped, or leave GPUs idle (actor + rollout + prm < gpus_per_node)",
  });
}
