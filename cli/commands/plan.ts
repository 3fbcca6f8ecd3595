// `openclaw-rl plan [--json]`: the validated recipe → GPU placement and every process `start` would run (argv,
// env, cwd), secrets masked. No side effects: nothing is started or written; the bridge is a placeholder.
import path from "node:path";
import type { Command } from "commander";
import type { LaunchPlan, Placement, PlanContext, ProcessSpec } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { OpenclawRlErrorList } from "../../contracts/errors.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";
import { standInWeightErrors } from "../../launchers/slime/stand-in-weights.ts";
import { bridgeHost } from "../../orchestrator/bridge/bridge-server.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { PACKAGE_ROOT } from "../recipe-file.ts";

export const SECRET_MASK = "***";

interface PlanOptions extends CommonOptions {
  json?: boolean;
}

export function registerPlanCommand(program: Command): void {
  withRecipeOptions(program.command("plan"))
    .description("Show the GPU placement and every process `start` would run, without running anything")
    .option("--json", "print the plan as JSON")
    .action(async (options: PlanOptions) => {
      const { recipe, file } = recipeFromOptions(options);
      // a plan that hands slime the stand-in's name is wrong on every machine: refused here, not left to start's checks
      const standIn = standInWeightErrors(recipe);
      if (standIn.length > 0) throw new OpenclawRlErrorList(standIn);
      const plan = await buildLaunchPlan(recipe, placeholderContext(recipe, process.env));
      process.stdout.write(options.json ? `${JSON.stringify(planJson(plan), null, 2)}\n` : formatPlan(plan, recipe, file));
    });
}

/** What `plan` shows instead of a live run's bridge. */
export function placeholderContext(recipe: Recipe, environment: Record<string, string | undefined>): PlanContext {
  return {
    packageRoot: PACKAGE_ROOT,
    runDir: path.resolve(recipe.records.dir),
    bridgeUrl: `http://${bridgeHost(recipe)}:<bridge-port>`,
    bridgeToken: "<per-run token>",
    environment,
    runId: "plan",
  };
}

export function maskedEnv(process: ProcessSpec): Record<string, string> {
  const secrets = new Set(process.secretEnv ?? []);
  return Object.fromEntries(Object.entries(process.env).map(([key, value]) => [key, secrets.has(key) ? SECRET_MASK : value]));
}

export function planJson(plan: LaunchPlan) {
  return {
    method: plan.method,
    engine: plan.engine,
    placement: plan.placement,
    processes: plan.processes.map((spec) => ({ name: spec.name, node: spec.node, argv: spec.argv, env: maskedEnv(spec), cwd: spec.cwd })),
    files: (plan.files ?? []).map((file) => ({ path: file.path, content: file.content })),
    notes: plan.notes,
  };
}

export function formatPlan(plan: LaunchPlan, recipe: Recipe, file: string): string {
  const lines = [`recipe ${path.relative(process.cwd(), file) || file}${recipe.name ? ` (${recipe.name})` : ""}: method ${plan.method}, engine ${plan.engine}`, ""];
  lines.push(...formatPlacement(plan.placement));
  for (const planFile of plan.files ?? []) {
    lines.push(`file ${planFile.path} (written by start):`, ...planFile.content.trimEnd().split("\n").map((line) => `    ${line}`), "");
  }
  for (const spec of plan.processes) lines.push(...formatProcess(spec), "");
  if (plan.processes.length === 0) lines.push("processes: none", "");
  if (plan.notes.length > 0) lines.push("notes:", ...plan.notes.map((note) => `  - ${note}`));
  return `${lines.join("\n").trimEnd()}\n`;
}

function formatPlacement(placement: Placement | null): string[] {
  if (!placement) return ["placement: no GPUs (this engine runs none)", ""];
  const lines = [`placement: ${placement.nodes.length} node(s), ${placement.totalGpus} GPUs`];
  for (const node of placement.nodes) {
    const roles = (["actor", "rollout", "prm", "idle"] as const).map((role) => `${role} ${formatIds(node[role])}`);
    lines.push(`  node ${node.node}: ${roles.join(" | ")}`);
  }
  for (const [index, engine] of placement.engines.entries()) {
    lines.push(`  engine ${index}: ${engine.role} on node ${engine.node}, GPUs ${formatIds(engine.gpus)}`);
  }
  return [...lines, ""];
}

function formatIds(ids: number[]): string {
  if (ids.length === 0) return "-";
  const first = ids[0]!;
  const last = ids[ids.length - 1]!;
  const contiguous = last - first === ids.length - 1;
  return contiguous && ids.length > 1 ? `${first}-${last}` : ids.join(",");
}

function formatProcess(spec: ProcessSpec): string[] {
  const env = Object.entries(maskedEnv(spec)).map(([key, value]) => `    ${key}=${value === SECRET_MASK ? value : shellQuote(value)}`);
  return [`process ${spec.name} (node ${spec.node}, cwd ${spec.cwd})`, ...(env.length > 0 ? ["  env:", ...env] : []), `  $ ${spec.argv.map(shellQuote).join(" ")}`];
}

export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
