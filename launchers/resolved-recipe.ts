// <run>/recipe.resolved.yaml: the recipe exactly as a `start` parsed it (file + --set + --method), written by the
// CLI's run folder; here its place and reading it back (doctor: the ports a running start holds). Ignores writing.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { recipeSchema, type Recipe } from "../contracts/recipe.ts";

export const RESOLVED_RECIPE_FILE = "recipe.resolved.yaml";

export function resolvedRecipePath(runDir: string): string {
  return path.join(runDir, RESOLVED_RECIPE_FILE);
}

/** The run's resolved recipe, or null when it is missing or no longer parses. */
export function readResolvedRecipe(runDir: string): Recipe | null {
  try {
    const parsed = recipeSchema.safeParse(parse(readFileSync(resolvedRecipePath(runDir), "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
