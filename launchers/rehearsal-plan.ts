// The rehearsal engine's processes: the stand-in policy and judge servers (node + tsx, loopback ports from
// engine.rehearsal; the policy keeps its weight state in the run folder, so a restart resumes its version) and the
// stand-in trainer (Python, the real native rollout function; none with sink.kind jsonl, where samples go to a file
// and there is no bridge). Pure: starts nothing.
import { existsSync } from "node:fs";
import path from "node:path";
import type { PlanContext, ProcessSpec } from "../contracts/plan.ts";
import type { Recipe } from "../contracts/recipe.ts";
import { judgeTokenizerSource, policyTokenizerSource } from "../lib/model/tokenizer-sources.ts";

/**
 * Python that runs the stand-in trainer: the system one (Debian's python3-torch installs torch there, which the
 * native rollout function and the learner need), else `python3` from PATH (without torch the trainer says so and
 * only acknowledges batches).
 */
export const STANDIN_PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
/** Delay per streamed token of the stand-in servers, so pauses can land mid-generation as on a real engine. */
export const STANDIN_TOKEN_DELAY_MS = 2;
/** Adam step size of the stand-in style softmax (the recipe's training.lr is sized for real models). */
export const STANDIN_LEARNING_RATE = 0.5;
/** Where the stand-in policy saves its version and weights at each update (beside the trainer's policy files). */
export function standinWeightStatePath(runDir: string): string {
  return path.join(runDir, "standin-policy", "weight-state.json");
}

/** A stand-in server; `weights` are its weight arguments (default: the policy's weight state in the run folder). */
function serverProcess(recipe: Recipe, context: PlanContext, role: "policy" | "judge", served: { name?: string; port?: number; weights?: string[] } = {}): ProcessSpec {
  const rehearsal = recipe.engine.rehearsal;
  const tokenizer = (role === "policy" ? policyTokenizerSource(recipe) : judgeTokenizerSource(recipe)).path;
  const port = served.port ?? (role === "policy" ? rehearsal.policy_port : rehearsal.judge_port);
  return {
    name: served.name ?? `rehearsal-${role}`,
    role: "standin-server",
    port,
    node: 0,
    cwd: context.packageRoot,
    argv: [
      process.execPath, "--import", "tsx/esm",
      path.join(context.packageRoot, "rehearsal", "sglang", "main.ts"),
      "--role", role,
      "--port", String(port),
      "--tokenizer", tokenizer,
      "--served-model-name", recipe.model.served_name,
      "--seed", String(rehearsal.seed),
      "--token-delay-ms", String(STANDIN_TOKEN_DELAY_MS),
      // the streaming form of the SGLang the recipe's slime would run, unless the recipe names one
      "--stream-form", recipe.derived.standinStreamForm,
      // the hybrid's m hint votes of one turn vary, as a sampling judge's do, so its dispatch meets every case
      ...(role === "judge" && recipe.method === "hybrid" ? ["--hint-variants"] : []),
      // a restarted policy serves the version and weights it had in this run (a real engine gets the trainer's)
      ...(served.weights ?? (role === "policy" ? ["--weight-state", standinWeightStatePath(context.runDir), "--run-id", context.runId ?? "plan"] : [])),
    ],
    env: {},
  };
}

/**
 * A second stand-in policy for `openclaw-rl eval --checkpoint`: the rehearsal's policy entry on `port`, serving a saved
 * policy file (policy-vN.json; null: the base weights) as weight version `version`, keeping no weight state.
 */
export function standinCheckpointProcess(recipe: Recipe, context: PlanContext, checkpoint: { policyFile: string | null; version: string; port: number }): ProcessSpec {
  const weights = [...(checkpoint.policyFile ? ["--policy-file", checkpoint.policyFile] : []), "--weight-version", checkpoint.version];
  return serverProcess(recipe, context, "policy", { name: `checkpoint-policy-v${checkpoint.version}`, port: checkpoint.port, weights });
}

function trainerProcess(recipe: Recipe, context: PlanContext): ProcessSpec {
  const rehearsal = recipe.engine.rehearsal;
  return {
    name: "rehearsal-trainer",
    role: "standin-trainer",
    node: 0,
    cwd: context.packageRoot,
    argv: [
      STANDIN_PYTHON, path.join(context.packageRoot, "rehearsal", "trainer", "trainer.py"),
      "--policy-url", `http://127.0.0.1:${rehearsal.policy_port}`,
      "--judge-url", `http://127.0.0.1:${rehearsal.judge_port}`,
      "--method", recipe.method,
      "--batch-size", String(recipe.training.batch_size),
      "--train-seconds", String(rehearsal.train_seconds),
      "--learn", rehearsal.learn,
      "--lr", String(STANDIN_LEARNING_RATE),
      "--eps-clip", String(recipe.training.eps_clip),
      "--eps-clip-high", String(recipe.training.eps_clip_high),
      ...(recipe.method === "hybrid" ? hybridTrainerArgs(recipe) : ["--w-rl", String(recipe.combine.w_rl), "--w-opd", String(recipe.combine.w_opd)]),
      ...(recipe.method !== "hybrid" && recipe.derived.teacher === "trainer" ? ["--opd-teacher", "trainer", "--teacher-temperature", String(recipe.derived.teacherTemperature)] : []),
      "--run-dir", context.runDir,
      "--keep-policies", String(rehearsal.keep_policies),
    ],
    env: {
      OPENCLAW_RL_BRIDGE: context.bridgeUrl,
      OPENCLAW_RL_BRIDGE_TOKEN: context.bridgeToken,
      PYTHONPATH: path.join(context.packageRoot, "native"),
      PYTHONUNBUFFERED: "1",
    },
    secretEnv: ["OPENCLAW_RL_BRIDGE_TOKEN"],
  };
}

/** The hybrid's loss knobs (recipe.hybrid); its frozen teacher scores at the sampling temperature, as slime's forward does. */
function hybridTrainerArgs(recipe: Recipe): string[] {
  const hybrid = recipe.hybrid;
  return [
    "--hybrid-selection", hybrid.selection,
    "--hybrid-subset", hybrid.subset,
    "--hybrid-topk", String(hybrid.topk),
    "--hybrid-clip", String(hybrid.clip),
    "--w-rl", String(hybrid.w_rl),
    "--w-opd", String(hybrid.w_opd),
    "--teacher-temperature", String(recipe.sampling.temperature),
  ];
}

export function rehearsalProcesses(recipe: Recipe, context: PlanContext): ProcessSpec[] {
  const servers = [serverProcess(recipe, context, "policy"), serverProcess(recipe, context, "judge")];
  // a JSONL sink has no bridge for a trainer to read from: the samples are for training later
  return recipe.sink.kind === "jsonl" ? servers : [...servers, trainerProcess(recipe, context)];
}
