// How `openclaw-rl eval --checkpoint` serves a saved weight version: in rehearsal a second stand-in policy loaded with
// a saved policy-vN.json (or the base weights); with slime an SGLang server on a converted checkpoint; else refused by name.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { standinCheckpointProcess, standinWeightStatePath } from "../rehearsal-plan.ts";
import type { CheckpointRequest, CheckpointServing } from "./served-checkpoint.ts";
import { planSlimeCheckpointServer } from "./slime-checkpoint-server.ts";

export function planCheckpointServing(recipe: Recipe, request: CheckpointRequest): CheckpointServing {
  if (recipe.engine.kind === "rehearsal") return standinCheckpoint(recipe, request);
  if (recipe.engine.kind === "slime") return planSlimeCheckpointServer(recipe, request);
  throw new OpenclawRlError("EVALUATION_REFUSED", `engine.kind external: openclaw-rl starts no engine, so it cannot load the checkpoint ${request.checkpoint} into one`, {
    path: "--checkpoint",
    hint: "serve the checkpoint yourself and evaluate it live (`openclaw-rl eval --run DIR` against a start attached to it), or use engine.kind slime",
  });
}

/** The folder the stand-in trainer saves policy-vN.json files in (engine.rehearsal.keep_policies of them). */
export function standinPolicyFolder(runDir: string): string {
  return path.dirname(standinWeightStatePath(runDir));
}

function standinCheckpoint(recipe: Recipe, request: CheckpointRequest): CheckpointServing {
  const { version, file } = savedPolicy(recipe, request.context.runDir, request.checkpoint);
  const spec = standinCheckpointProcess(recipe, request.context, { policyFile: file, version, port: request.port });
  const url = `http://127.0.0.1:${request.port}`;
  return { version, checkpoint: file, spec, url, readyUrl: `${url}/health_generate` };
}

const POLICY_FILE = /^policy-v(\d+)\.json$/;

/** `base`/`v0`/`0`: the base weights; `vN`/`N`: <run>/standin-policy/policy-vN.json; else a policy-vN.json path. */
export function savedPolicy(recipe: Recipe, runDir: string, checkpoint: string): { version: string; file: string | null } {
  const numbered = /^(?:base|v?(\d+))$/.exec(checkpoint);
  if (numbered && Number(numbered[1] ?? 0) === 0) return { version: "0", file: null };
  const file = numbered ? path.join(standinPolicyFolder(runDir), `policy-v${Number(numbered[1])}.json`) : path.resolve(checkpoint);
  const named = POLICY_FILE.exec(path.basename(file));
  if (!named) {
    throw new OpenclawRlError("EVALUATION_REFUSED", `${checkpoint} is not a saved stand-in policy (policy-vN.json): its name says no weight version`, {
      path: "--checkpoint",
      hint: "pass vN, base, or a policy-vN.json the stand-in trainer saved",
    });
  }
  if (!existsSync(file)) {
    const kept = keptVersions(runDir);
    const version = Number(named[1]);
    const keep = recipe.engine.rehearsal.keep_policies;
    const why = kept.length > 0 && version < kept[kept.length - 1]! ? `: retention dropped it (the stand-in trainer keeps the newest engine.rehearsal.keep_policies = ${keep})` : kept.length > 0 ? `: not saved (the newest saved is v${kept[kept.length - 1]})` : ": no policy is saved yet";
    throw new OpenclawRlError("CHECKPOINT_MISSING", `no saved stand-in policy v${version} (${file})${why}`, {
      path: "--checkpoint",
      hint: `${kept.length > 0 ? `available: ${kept.map((saved) => `v${saved}`).join(", ")}, and base (the base weights)` : "available: base (the base weights)"}; to keep more, start with --set engine.rehearsal.keep_policies=N (0 keeps every one)`,
    });
  }
  return { version: String(Number(named[1])), file };
}

/** The versions with a policy-vN.json in the run folder, ascending. */
export function keptVersions(runDir: string): number[] {
  const folder = standinPolicyFolder(runDir);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .flatMap((name) => {
      const match = POLICY_FILE.exec(name);
      return match ? [Number(match[1])] : [];
    })
    .sort((a, b) => a - b);
}
