// Doctor: records.dir can be created and written (the same look preflight takes; nothing is created).
// Ignores free space (disk-check.ts).
import path from "node:path";
import type { Recipe } from "../../contracts/recipe.ts";
import { recordsDirProblem } from "../preflight/records-dir-check.ts";
import { failed, passed, type CheckResult } from "./doctor-check.ts";

export function checkRecordsDir(recipe: Recipe, cwd: string): CheckResult {
  const runDir = path.resolve(cwd, recipe.records.dir);
  const problem = recordsDirProblem(runDir);
  if (problem) return failed("records", `records.dir: ${problem.message}`, problem.hint ?? "point records.dir at a folder you can write");
  return passed("records", `records.dir ${recipe.records.dir} can be created and written (${runDir})`);
}
