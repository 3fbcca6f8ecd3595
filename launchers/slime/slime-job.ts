// `ray job submit … -- python3 train_async.py …`: the driver's runtime environment (PYTHONPATH with our native
// package, slime and Megatron; the bridge address) and the submission id. Secrets never go here: this is argv.
import path from "node:path";
import type { PlanContext, ProcessSpec } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { BRIDGE_URL_ENV } from "../../contracts/bridge.ts";
import { noProxy } from "./ray-cluster.ts";

export function submissionId(context: PlanContext): string {
  return `openclaw-rl-${context.runId ?? "plan"}`;
}

/** Megatron (not for FSDP), our native package, slime: what slime's processes import from. */
export function slimePythonPath(recipe: Recipe, packageRoot: string): string {
  const slime = recipe.engine.slime;
  const megatron = recipe.derived.trainingBackend === "megatron" ? [slime.megatron_root] : [];
  return [...megatron, path.join(packageRoot, "native"), slime.root].join(":");
}

/** Non-secret variables for the driver and every actor on every node (Ray's runtime_env.env_vars). */
export function runtimeEnvVars(recipe: Recipe, context: PlanContext): Record<string, string> {
  return {
    PYTHONPATH: slimePythonPath(recipe, context.packageRoot),
    CUDA_DEVICE_MAX_CONNECTIONS: "1",
    PYTHONUNBUFFERED: "1",
    PYTHONFAULTHANDLER: "1",
    [BRIDGE_URL_ENV]: context.bridgeUrl,
  };
}

export function slimeJobProcess(recipe: Recipe, context: PlanContext, trainArgv: string[]): ProcessSpec {
  const slime = recipe.engine.slime;
  const runtimeEnv = JSON.stringify({ env_vars: runtimeEnvVars(recipe, context) });
  return {
    name: "slime-job",
    role: "slime-job",
    node: 0,
    // The job driver runs in the directory `ray start` ran in (the slime root), where train_async.py lives.
    cwd: slime.root,
    argv: [
      slime.ray, "job", "submit",
      "--address", `http://127.0.0.1:${recipe.cluster.dashboard_port}`,
      "--submission-id", submissionId(context),
      "--runtime-env-json", runtimeEnv,
      "--", slime.python, "train_async.py",
      ...trainArgv,
    ],
    env: noProxy(recipe),
  };
}
