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
  const runDir = request.context.runDir;
  const { folder, iteration } = huggingFaceCheckpoint(runDir, request.checkpoint);
  const state = huggingFaceFolderState(folder);
  if (!state.ready) {
    const saveDir = insideRunDir(runDir, recipe.training.save_dir);
    if (!existsSync(path.join(saveDir, iterationFolderName(iteration)))) {
      const saved = listCheckpoints(saveDir).map((entry) => entry.iteration);
      throw new OpenclawRlError("CHECKPOINT_MISSING", `no checkpoint iteration ${iteration}: neither ${path.join(saveDir, iterationFolderName(iteration))} nor its converted folder ${folder}`, {
        path: "--checkpoint",
        hint: saved.length > 0 ? `${saveDir} holds iterations ${saved.join(", ")}` : `${saveDir} holds no checkpoint yet (training.save_interval decides when slime saves)`,
      });
    }
    const convert = cliCommand(`convert-checkpoint --run ${shellWord(runDir)} --iteration ${iteration} --out ${shellWord(convertedFolder(runDir, iteration))}`);
    throw new OpenclawRlError("EVALUATION_REFUSED", `iteration ${iteration} is not converted to Hugging Face yet (${state.detail}): SGLang loads only a Hugging Face folder`, {
      path: "--checkpoint",
      hint: `convert it first: \`${convert}\`, then \`${cliCommand(`eval --run ${shellWord(runDir)} --checkpoint ${iteration}`)}\``,
    });
  }
  const gpus = freeGpus(recipe, request.gpus ?? { startRunning: false });
  const spec = sglangServerProcess(recipe, {
    name: `checkpoint-policy-v${versionOfIteration(iteration)}`,
    role: "checkpoint-server",
    modelPath: folder,
    port: request.port,
    node: 0,
    gpus,
    tp: recipe.cluster.rollout_tp,
    dataParallel: 1,
    extraArgs: ["--served-model-name", recipe.model.served_name],
  });
  const url = `http://127.0.0.1:${request.port}`;
  return { version: String(versionOfIteration(iteration)), checkpoint: folder, spec, url, readyUrl: `${url}/health_generate` };
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
