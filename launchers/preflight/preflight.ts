// Checks before `start` launches or writes anything: records.dir that cannot be created, a proxy on a
// non-loopback address without a key, parsers that would leave the model family's tool calls as text, a Ray cluster
// already running, an installed slime or SGLang the recipe disagrees with, ports already taken, a previous run's
// orchestrator or children still alive. Reports problems with the fix; never kills anything.
import { bindProblem } from "../../lib/bind-rule.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { LaunchPlan } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { findLeftovers } from "../supervisor/pid-registry.ts";
import { rayControlFor } from "../supervisor/plan-children.ts";
import { checkPort, recipePorts } from "../recipe-ports.ts";
import { checkFamily } from "../doctor/family-check.ts";
import { installationProblems } from "./installation-problems.ts";
import { recordsDirProblem } from "./records-dir-check.ts";

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

  const recordsDir = recordsDirProblem(options.runDir);
  if (recordsDir) problems.push(recordsDir);
  const bind = bindProblem(recipe.proxy.host, options.environment[recipe.proxy.api_key_env] || undefined, recipe.proxy.api_key_env);
  if (bind) problems.push(bind);

  const leftovers = findLeftovers(options.runDir);
  if (leftovers.orchestratorPid !== null) {
    problems.push(
      new OpenclawRlError("PORT_IN_USE", `another openclaw-rl start (pid ${leftovers.orchestratorPid}) is running with this run folder`, {
        path: "records.dir",
        hint: `stop it first (Ctrl-C in its terminal, or kill -TERM ${leftovers.orchestratorPid}), or use another records.dir`,
      }),
    );
  }
  // Children of a run that is still alive are that run's, not leftovers: refusing says all there is to say.
  for (const child of leftovers.orchestratorPid === null ? leftovers.children : []) {
    warnings.push(`pid ${child.pid} (${child.name}, started by an earlier openclaw-rl run) is still alive: ${child.commandLine}; if it is not wanted, stop it with kill -TERM -${child.pid}`);
  }

  // parsers that would leave the family's tool calls as text refuse the start; an unknown family is said
  const family = await checkFamily(recipe);
  if (family.status === "fail") problems.push(new OpenclawRlError("ENGINE_UNSUPPORTED", family.detail, { path: "model.tool_call_parser", hint: family.fix }));
  if (family.status === "warn") warnings.push(`${family.detail} (${family.fix})`);

  if (plan.engine === "slime") {
    await checkRay(options, problems);
    const installation = await installationProblems(recipe, options.packageRoot, options.environment);
    problems.push(...installation.problems);
    warnings.push(...installation.warnings);
  }

  // Ray's own ports were checked above (taken, they mean a running Ray)
  const seen = new Map<number, string>();
  for (const use of recipePorts(recipe).filter((use) => !use.ray)) {
    const clash = seen.get(use.port);
    if (clash) {
      problems.push(new OpenclawRlError("PORT_IN_USE", `port ${use.port} is given to both ${clash} and ${use.what}`, { path: use.key, hint: "give each a different port" }));
      continue;
    }
    seen.set(use.port, use.what);
    const check = await checkPort(use.port, use.host);
    if (!check.free) problems.push(portProblem(use.port, use.what, use.key, check.code));
  }
  return { problems, warnings };
}

async function checkRay(options: PreflightOptions, problems: OpenclawRlError[]): Promise<void> {
  const { recipe } = options;
  const ray = rayControlFor(recipe, options.environment, options.plan.processes);
  const status = await ray.status(20_000, null).catch(() => ({ running: false, nodes: 0, output: "" }));
  const hint = "openclaw-rl starts its own Ray head: stop the running one with `ray stop` if it is yours, or set cluster.ray_port / cluster.dashboard_port to free ports";
  if (status.running) {
    problems.push(new OpenclawRlError("RAY_RUNNING", "a Ray cluster is already running on this machine (`ray status` answers)", { path: "cluster.ray_port", hint }));
    return;
  }
  for (const use of recipePorts(recipe).filter((use) => use.ray)) {
    const check = await checkPort(use.port, use.host);
    if (!check.free) problems.push(new OpenclawRlError("RAY_RUNNING", `port ${use.port} is in use (${check.code}); Ray may already be running`, { path: use.key, hint }));
  }
}

function portProblem(port: number, what: string, path: string, code: string): OpenclawRlError {
  const message = code === "EACCES" ? `port ${port} for ${what} needs privileges` : `port ${port} for ${what} is already in use`;
  return new OpenclawRlError("PORT_IN_USE", message, {
    path,
    hint: `stop whatever listens there (see \`ss -ltnp 'sport = :${port}'\`) or choose another port with --set ${path}=<port>`,
  });
}
