// `doctor`: runs the checks that apply to the recipe's engine and returns their results in a fixed order; it fails
// whatever `start` would refuse (the same rules as start's preflight). Ignores printing and exit codes; never throws.
import path from "node:path";
import type { Recipe } from "../../contracts/recipe.ts";
import { findRunningStart } from "../preflight/running-start.ts";
import { placementProblems } from "../placement.ts";
import { slimePythonPath } from "../slime/slime-job.ts";
import { checkCheckpoints } from "./checkpoint-check.ts";
import { checkFamily } from "./family-check.ts";
import { checkDisk } from "./disk-check.ts";
import { failed, passed, type CheckResult } from "./doctor-check.ts";
import { checkGpus } from "./gpu-check.ts";
import { checkPorts } from "./port-check.ts";
import { checkPythonImports, checkRay } from "./python-check.ts";
import { checkRecordsDir } from "./records-check.ts";
import { checkInstallation } from "./installation-check.ts";
import { checkModelArgs } from "./model-args-check.ts";
import { checkStartRefusals } from "./start-refusal-check.ts";

export interface DoctorOptions {
  cwd: string;
  packageRoot: string;
  /** The environment the slime Python runs in; absent: this process's. */
  environment?: Record<string, string | undefined>;
}

export interface DoctorReport {
  results: CheckResult[];
  /** Checks left out because the engine does not need them. */
  notApplicable: string[];
  ok: boolean;
}

export async function runDoctor(recipe: Recipe, options: DoctorOptions): Promise<DoctorReport> {
  const runDir = path.resolve(options.cwd, recipe.records.dir);
  const running = findRunningStart(runDir);
  const environment = options.environment ?? process.env;
  const common = [
    checkStartRefusals(recipe, { runDir, running, packageRoot: options.packageRoot, environment }),
    checkCheckpoints(recipe),
    checkFamily(recipe).then((result) => [result]),
    checkPorts(recipe, running),
    checkDisk(recipe, options.cwd).then((result) => [checkRecordsDir(recipe, options.cwd), result]),
  ];
  const engineChecks = recipe.engine.kind === "slime" ? [slimeChecks(recipe, options)] : [];
  const results = (await Promise.all([...engineChecks, ...common])).flat();
  const notApplicable = recipe.engine.kind === "slime" ? [] : [`engine ${recipe.engine.kind} starts no GPU engine: GPU, placement, Python, Ray and slime checks do not apply`];
  return { results, notApplicable, ok: results.every((result) => result.status !== "fail") };
}

async function slimeChecks(recipe: Recipe, options: DoctorOptions): Promise<CheckResult[]> {
  const pythonPath = slimePythonPath(recipe, options.packageRoot);
  const [gpus, python, ray, installation, modelArgs] = await Promise.all([
    checkGpus(recipe),
    checkPythonImports(recipe, pythonPath),
    checkRay(recipe),
    checkInstallation(recipe, { packageRoot: options.packageRoot, ...(options.environment ? { environment: options.environment } : {}) }),
    checkModelArgs(recipe),
  ]);
  return [placementCheck(recipe), gpus, ...python, ray, ...installation, modelArgs].flat();
}

function placementCheck(recipe: Recipe): CheckResult[] {
  const problems = placementProblems(recipe);
  if (problems.length === 0) {
    const { nodes, gpus_per_node, actor_gpus, rollout_gpus, prm_gpus } = recipe.cluster;
    return [passed("placement", `${actor_gpus}/${rollout_gpus}/${recipe.judge.launch === "external" ? 0 : prm_gpus} GPUs (actor/rollout/prm) fit ${nodes} node(s) × ${gpus_per_node}`)];
  }
  return problems.map((problem) => failed("placement", `${problem.path}: ${problem.message}`, problem.hint ?? `change ${problem.path}`));
}
