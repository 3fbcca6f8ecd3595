// Builds the plan of a shipped recipe with fixed paths, so golden files do not depend on the machine.
// The model-args file is our fixture of the qwen3-4B shape (slime's own file is not on this machine).
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LaunchPlan, PlanContext } from "../../contracts/plan.ts";
import { loadRecipe } from "../../cli/recipe-file.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, "..", "..");
export const MODEL_ARGS_FIXTURE = path.join(REPO_ROOT, "tests", "fixtures", "slime-models", "qwen3-4b-model-args.sh");

export const GOLDEN_CONTEXT: PlanContext = {
  packageRoot: "/opt/openclaw-rl",
  runDir: "/runs/golden",
  bridgeUrl: "http://127.0.0.1:40000",
  bridgeToken: "golden-bridge-token",
  environment: {},
  runId: "golden",
};

export async function goldenPlan(recipeName: string, set: string[] = []): Promise<LaunchPlan> {
  const { recipe } = loadRecipe({
    recipe: path.join(REPO_ROOT, "configs", `${recipeName}.yaml`),
    set: [`engine.slime.model_args=${MODEL_ARGS_FIXTURE}`, ...set],
  });
  return buildLaunchPlan(recipe, GOLDEN_CONTEXT, { strict: true });
}

/** The train_async.py argv of a plan (everything after `-- python3 train_async.py`). */
export function trainArgv(plan: LaunchPlan): string[] {
  const job = plan.processes.find((process) => process.name === "slime-job");
  if (!job) throw new Error("plan has no slime-job");
  return job.argv.slice(job.argv.indexOf("train_async.py") + 1);
}
