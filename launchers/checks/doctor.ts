// `doctor`: every check (checks.ts), the machine's included, and whether any failed: it fails whatever `start` would
// refuse, from the same checks. Ignores printing and exit codes; never throws.
import path from "node:path";
import type { Recipe } from "../../contracts/recipe.ts";
import type { CheckResult } from "./check-result.ts";
import { runChecks } from "./checks.ts";

export interface DoctorOptions {
  cwd: string;
  packageRoot: string;
  /** The environment the slime Python and the proxy's key are read from; absent: this process's. */
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
  const environment = options.environment ?? process.env;
  const results = await runChecks({ recipe, runDir, packageRoot: options.packageRoot, environment, machine: true });
  const notApplicable = recipe.engine.kind === "slime" ? [] : [`engine ${recipe.engine.kind} starts no GPU engine: GPU, placement, Python, Ray and slime checks do not apply`];
  return { results, notApplicable, ok: results.every((result) => result.status !== "fail") };
}
