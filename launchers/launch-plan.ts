// recipe + context → LaunchPlan, by engine kind: slime (Ray + slime + SGLang), external (nothing to start),
// rehearsal (CPU stand-ins, from launchers/rehearsal). Pure: starts nothing, writes nothing.
import { existsSync } from "node:fs";
import type { LaunchPlan, PlanContext, ProcessSpec } from "../contracts/plan.ts";
import type { Recipe } from "../contracts/recipe.ts";
import { slimePlan, type SlimePlanOptions } from "./slime/slime-plan.ts";

export type LaunchPlanOptions = SlimePlanOptions;

export async function buildLaunchPlan(recipe: Recipe, context: PlanContext, options: LaunchPlanOptions = {}): Promise<LaunchPlan> {
  switch (recipe.engine.kind) {
    case "slime":
      return slimePlan(recipe, context, options);
    case "external":
      return {
        method: recipe.method,
        engine: "external",
        placement: null,
        processes: [],
        notes: [`attaches to the policy at ${recipe.engine.policy_url} and the judge at ${recipe.judge.url ?? recipe.engine.judge_url}; starts no engine`],
      };
    case "rehearsal":
      return rehearsalPlan(recipe, context);
  }
}

type RehearsalProcesses = (recipe: Recipe, context: PlanContext) => ProcessSpec[] | Promise<ProcessSpec[]>;

/**
 * launchers/rehearsal/rehearsal-plan.ts is written by another helper; until it exists the plan says so instead
 * of failing. The specifier is a variable so the type checker does not require the file.
 */
async function rehearsalPlan(recipe: Recipe, context: PlanContext): Promise<LaunchPlan> {
  const base = { method: recipe.method, engine: "rehearsal" as const, placement: null };
  const specifier = new URL("./rehearsal/rehearsal-plan.ts", import.meta.url);
  const rehearsalProcesses = existsSync(specifier)
    ? ((await import(specifier.href)) as { rehearsalProcesses?: RehearsalProcesses }).rehearsalProcesses
    : undefined;
  if (!rehearsalProcesses) {
    return { ...base, processes: [], notes: ["rehearsal engine not built yet: launchers/rehearsal/rehearsal-plan.ts (rehearsalProcesses) is missing"] };
  }
  return { ...base, processes: await rehearsalProcesses(recipe, context), notes: ["the policy and judge are CPU stand-ins: the model is a stand-in"] };
}
