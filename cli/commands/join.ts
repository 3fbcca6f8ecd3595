// `openclaw-rl join --head ADDR [--node N]`: on a worker node, runs that node's planned `ray start --address
// ADDR:<ray_port>` (its GPUs and environment from the plan) in the foreground; `start` on the head waits for it.
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { execa } from "execa";
import { OpenclawRlError, osReason } from "../../contracts/errors.ts";
import type { ProcessSpec } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { placeholderContext } from "./plan.ts";

interface JoinOptions extends CommonOptions {
  head: string;
  node?: string;
  dryRun?: boolean;
}

export function registerJoinCommand(program: Command): void {
  withRecipeOptions(program.command("join"))
    .description("On a worker node: join the head's Ray cluster with this node's planned GPUs (run the same recipe as the head)")
    .requiredOption("--head <address>", "the head node's address (cluster.head_address of the head)")
    .option("--node <n>", "which worker node this is (1 = first worker)", "1")
    .option("--dry-run", "print the command instead of running it")
    .action(async (options: JoinOptions) => {
      const { recipe } = recipeFromOptions(options);
      const spec = await workerProcess(recipe, options);
      if (options.dryRun) {
        process.stdout.write(`${spec.argv.join(" ")}\n`);
        return;
      }
      process.stderr.write(`· joining ${options.head}:${recipe.cluster.ray_port} as node ${spec.node}: ${spec.argv.join(" ")}\n`);
      const result = await execa(spec.argv[0]!, spec.argv.slice(1), {
        env: { ...process.env, ...spec.env },
        cwd: existsSync(spec.cwd) ? spec.cwd : undefined,
        stdio: "inherit",
        reject: false,
      });
      if (result.exitCode === undefined && result.signal === undefined) throw notStarted(spec.argv[0]!, result);
      process.exitCode = result.exitCode ?? 1;
    });
}

/** `ray` could not be started at all (not installed, not executable): no exit code, so say why. */
function notStarted(program: string, result: { code?: string; cause?: unknown; shortMessage?: string }): OpenclawRlError {
  const hint = "install Ray on this node (the slime environment's, the same version as the head's), or set engine.slime.ray to its full path";
  if (result.code === "ENOENT") {
    const where = program.includes("/") ? "" : " on PATH";
    return new OpenclawRlError("CHILD_FAILED", `${program} not found${where} (spawn ${program} ENOENT)`, { path: "engine.slime.ray", cause: result.cause, hint });
  }
  const reason = result.cause === undefined ? (result.shortMessage ?? "unknown reason") : osReason(result.cause);
  return new OpenclawRlError("CHILD_FAILED", `cannot run ${program}: ${reason}`, { path: "engine.slime.ray", cause: result.cause, hint });
}

/** The planned worker command of node N, pointed at the given head. */
export async function workerProcess(recipe: Recipe, options: Pick<JoinOptions, "head" | "node">): Promise<ProcessSpec> {
  const node = Number(options.node ?? 1);
  if (recipe.engine.kind !== "slime" || recipe.cluster.nodes < 2) {
    throw new OpenclawRlError("RECIPE_INVALID", "join is for multi-node slime recipes (engine.kind slime, cluster.nodes ≥ 2)", { path: "cluster.nodes" });
  }
  if (!Number.isInteger(node) || node < 1 || node >= recipe.cluster.nodes) {
    throw new OpenclawRlError("RECIPE_INVALID", `--node must be 1..${recipe.cluster.nodes - 1} (cluster.nodes is ${recipe.cluster.nodes})`, { path: "--node" });
  }
  const plan = await buildLaunchPlan(recipe, placeholderContext(recipe, process.env));
  const spec = plan.processes.find((process) => process.node === node && process.argv.includes("start"));
  if (!spec) throw new OpenclawRlError("PLACEMENT_INVALID", `the plan has no Ray worker for node ${node}`, { path: "cluster.nodes" });
  const address = `${options.head}:${recipe.cluster.ray_port}`;
  const argv = [...spec.argv];
  const index = argv.indexOf("--address");
  if (index >= 0) argv[index + 1] = address;
  else argv.push("--address", address);
  return { ...spec, argv };
}
