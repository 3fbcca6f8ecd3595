// The one set of checks before a run, in the order doctor prints them: doctor runs them all; start runs those that
// can refuse it (the rest look at the machine: GPUs, Python, checkpoints, disk) and refuses on any failure.
import type { LaunchPlan } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { slimePythonPath } from "../slime/slime-job.ts";
import { checkBind } from "./bind-check.ts";
import type { CheckResult } from "./check-result.ts";
import { checkCheckpoints } from "./checkpoint-check.ts";
import { checkDisk } from "./disk-check.ts";
import { checkFamily } from "./family-check.ts";
import { checkGpus } from "./gpu-check.ts";
import { checkInstallation } from "./installation-check.ts";
import { checkLeftovers } from "./leftovers-check.ts";
import { checkMethod } from "./method-check.ts";
import { checkModelArgs } from "./model-args-check.ts";
import { checkPlacement } from "./placement-check.ts";
import { checkPlan, planAsStartWould, type PlannedStart } from "./plan-check.ts";
import { checkPorts } from "./port-check.ts";
import { checkPythonImports, checkRay } from "./python-check.ts";
import { checkRayRunning } from "./ray-running-check.ts";
import { checkRecordsDir } from "./records-check.ts";
import { checkRunningStart, findRunningStart } from "./running-start-check.ts";

export interface CheckInput {
  recipe: Recipe;
  /** records.dir made absolute. */
  runDir: string;
  /** openclaw-rl's own folder: its native/ package is on the slime job's PYTHONPATH, and so on the probes'. */
  packageRoot: string;
  environment: Record<string, string | undefined>;
  /** start's plan (start builds it and throws on a refusal); absent: the checks build it as start would. */
  plan?: LaunchPlan;
  /** Also the checks of this machine that cannot refuse a start (doctor). */
  machine: boolean;
}

export async function runChecks(input: CheckInput): Promise<CheckResult[]> {
  const { recipe, runDir, environment, machine } = input;
  const slime = recipe.engine.kind === "slime";
  const running = findRunningStart(runDir);
  const planned: PlannedStart = input.plan ? { plan: input.plan, results: [checkPlan(input.plan)] } : await planAsStartWould(recipe, input);
  const groups = await Promise.all([
    slime && machine ? machineChecks(input) : [],
    checkBind(recipe, environment),
    checkMethod(recipe),
    checkRunningStart(runDir, running),
    running === null ? checkLeftovers(runDir) : [],
    planned.results,
    slime && planned.plan ? checkRayRunning(recipe, planned.plan, environment) : [],
    slime ? checkInstallation(recipe, { packageRoot: input.packageRoot, environment }) : [],
    slime && machine ? checkModelArgs(recipe) : [],
    machine ? checkCheckpoints(recipe) : [],
    checkFamily(recipe),
    checkPorts(recipe, running),
    checkRecordsDir(recipe.records.dir, runDir),
    machine ? checkDisk(recipe, runDir) : [],
  ]);
  return groups.flat();
}

/** The slime machine's GPUs, placement, Python and ray executable. */
async function machineChecks(input: CheckInput): Promise<CheckResult[]> {
  const { recipe } = input;
  const [gpus, python, ray] = await Promise.all([checkGpus(recipe), checkPythonImports(recipe, slimePythonPath(recipe, input.packageRoot)), checkRay(recipe)]);
  return [...checkPlacement(recipe), gpus, ...python, ray];
}
