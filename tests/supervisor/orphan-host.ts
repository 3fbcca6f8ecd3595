// A stand-in orchestrator for the SIGKILL test: starts the fixture stack under a Supervisor, prints the
// pids as one JSON line, then waits to be killed. Run with `node --import tsx orphan-host.ts <config>`.
import type { LaunchPlan } from "../../contracts/plan.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { defineChildren } from "../../launchers/supervisor/plan-children.ts";
import { Supervisor } from "../../launchers/supervisor/supervisor.ts";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";

const config = JSON.parse(process.argv[2]!) as { runDir: string; environment: Record<string, string>; plan: LaunchPlan; recipe: unknown; helloFile: string };
const recipe = recipeSchema.parse(config.recipe);
const supervisor = new Supervisor({ runDir: config.runDir, baseEnvironment: config.environment, stopGraceMs: 1000 });
const { readFileSync, existsSync } = await import("node:fs");
await supervisor.start(
  defineChildren(config.plan, recipe, {
    bridgeHello: () => (existsSync(config.helloFile) ? JSON.parse(readFileSync(config.helloFile, "utf8")) : null),
    baseEnvironment: config.environment,
    recheckMs: 200,
  }),
);
const ready = await supervisor.waitAllReady(HANG_GUARD_MS);
process.stdout.write(JSON.stringify({ ready, children: supervisor.statuses().map((status) => ({ name: status.name, pid: status.pid })) }) + "\n");
setInterval(() => undefined, 60_000);
