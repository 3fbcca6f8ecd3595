// The checks `start` runs against its plan before it launches or writes anything (checks.ts, the machine's left to
// doctor): each failure is a typed refusal with the recipe key and the fix, each warning a line. Never kills anything.
import type { OpenclawRlError } from "../../contracts/errors.ts";
import type { LaunchPlan } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { toRefusal, warningLine } from "./check-result.ts";
import { runChecks } from "./checks.ts";

export interface StartVerdict {
  problems: OpenclawRlError[];
  /** Worth saying, not worth refusing (leftover children of an earlier run, an unknown model family). */
  warnings: string[];
}

export interface StartCheckOptions {
  recipe: Recipe;
  plan: LaunchPlan;
  runDir: string;
  environment: Record<string, string | undefined>;
  /** openclaw-rl's own folder: its native/ package is on the slime job's PYTHONPATH, and so on the probe's. */
  packageRoot: string;
}

export async function checkStart(options: StartCheckOptions): Promise<StartVerdict> {
  const results = await runChecks({ ...options, machine: false });
  return {
    problems: results.filter((result) => result.status === "fail").map(toRefusal),
    warnings: results.filter((result) => result.status === "warn").map(warningLine),
  };
}
