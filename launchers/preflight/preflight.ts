// Checks before `start` launches or writes anything: a method start cannot run yet, records.dir that cannot be
// created, a proxy on a non-loopback address without a key, parsers that would leave the model family's tool calls as
// text, a Ray cluster already running, an installed slime or SGLang the recipe disagrees with, ports already taken, a
// previous run's orchestrator or children still alive. Reports problems with the fix; never kills anything.
import { bindProblem } from "../../lib/bind-rule.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { LaunchPlan } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { findLeftovers } from "../supervisor/pid-registry.ts";
import { checkFamily } from "../doctor/family-check.ts";
import { installationProblems } from "./installation-problems.ts";
import { methodProblem } from "./method-problems.ts";
import { portProblems } from "./port-problems.ts";
import { rayRunningProblems } from "./ray-running-check.ts";
import { recordsDirProblem } from "./records-dir-check.ts";
import { runningStartProblem } from "./running-start.ts";

export interface PreflightReport {
  problems: OpenclawRlError[];
  /** Worth saying, not worth refusing (leftover children of an earlier run that hold none of our ports). */
  warnings: string[];
}

export interface PreflightOptions {
  recipe: Recipe;
  plan: LaunchPlan;
  runDir: string;
  environment: Record<string, string | undefined>;
  /** openclaw-rl's own folder: its native/ package is on the slime job's PYTHONPATH, and so on the probe's. */
  packageRoot: string;
}

export async function runPreflight(options: PreflightOptions): Promise<PreflightReport> {
  const { recipe, plan } = options;
  const problems: OpenclawRlError[] = [];
  const warnings: string[] = [];

  const method = methodProblem(recipe);
  if (method) problems.push(method);
  const recordsDir = recordsDirProblem(options.runDir);
  if (recordsDir) problems.push(recordsDir);
  const bind = bindProblem(recipe.proxy.host, options.environment[recipe.proxy.api_key_env] || undefined, recipe.proxy.api_key_env);
  if (bind) problems.push(bind);

  const leftovers = findLeftovers(options.runDir);
  const running = runningStartProblem(options.runDir);
  if (running) problems.push(running);
  // Children of a run that is still alive are that run's, not leftovers: refusing says all there is to say.
  for (const child of leftovers.orchestratorPid === null ? leftovers.children : []) {
    warnings.push(`pid ${child.pid} (${child.name}, started by an earlier openclaw-rl run) is still alive: ${child.commandLine}; if it is not wanted, stop it with kill -TERM -${child.pid}`);
  }

  // parsers that would leave the family's tool calls as text refuse the start; an unknown family is said
  const family = await checkFamily(recipe);
  if (family.status === "fail") problems.push(new OpenclawRlError("ENGINE_UNSUPPORTED", family.detail, { path: "model.tool_call_parser", hint: family.fix }));
  if (family.status === "warn") warnings.push(`${family.detail} (${family.fix})`);

  if (plan.engine === "slime") {
    problems.push(...(await rayRunningProblems(recipe, plan, options.environment)));
    const installation = await installationProblems(recipe, options.packageRoot, options.environment);
    problems.push(...installation.problems);
    warnings.push(...installation.warnings);
  }

  // Ray's own ports were checked above (taken, they mean a running Ray)
  problems.push(...(await portProblems(recipe)));
  return { problems, warnings };
}
