// <run>/recipe.resolved.yaml: the recipe exactly as a `start` parsed it (file + --set + --method), its keys only (parsing
// derives the rest); here its place, writing it (the CLI's run folder) and reading it back (doctor: a running start's ports).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse, stringify } from "yaml";
import { recipeSchema, recipeSettingsOf, type Recipe } from "../contracts/recipe.ts";

export const RESOLVED_RECIPE_FILE = "recipe.resolved.yaml";

export function resolvedRecipePath(runDir: string): string {
  return path.join(runDir, RESOLVED_RECIPE_FILE);
}

/** Writes the recipe's keys, which parse back to the same resolved recipe. */
export function writeResolvedRecipe(runDir: string, recipe: Recipe): void {
  writeFileSync(resolvedRecipePath(runDir), stringify(recipeSettingsOf(recipe)));
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
