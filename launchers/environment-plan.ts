// The built-in environment server a recipe asks for (episodes.environment): environments/serve.ts on a loopback port,
// with as many lease slots as episodes run at once, the recipe's task file when it names one, and for swe the run
// folder's patches.jsonl (each episode's final patch). Pure: starts nothing.
import path from "node:path";
import type { PlanContext, ProcessSpec } from "../contracts/plan.ts";
import type { Recipe } from "../contracts/recipe.ts";

export function environmentProcess(recipe: Recipe, context: PlanContext): ProcessSpec | null {
  const episodes = recipe.episodes;
  if (!episodes.environment) return null;
  return {
    name: `environment-${episodes.environment}`,
    role: "environment-server",
    port: episodes.environment_port,
    node: 0,
    cwd: context.packageRoot,
    argv: [
      process.execPath, "--import", "tsx/esm",
      path.join(context.packageRoot, "environments", "serve.ts"),
      "--kind", episodes.environment,
      "--host", "127.0.0.1",
      "--port", String(episodes.environment_port),
      "--slots", String(episodes.concurrency),
      ...(episodes.tasks ? ["--tasks", path.resolve(episodes.tasks)] : []),
      ...(episodes.environment === "swe" ? ["--patches", path.join(context.runDir, "patches.jsonl")] : []),
    ],
    env: {},
  };
}
