// The shape of one cross-field recipe check: the YAML path it guards and what is wrong there. Ignores which checks exist.
import type { ResolvedRecipe } from "./resolved-recipe.ts";

/** A check: the message saying what is wrong with the recipe at its path, or null when nothing is. */
export type RecipeCheck = readonly [path: string, problem: (recipe: ResolvedRecipe) => string | null];

/** The message when the recipe is broken, else null. */
export function when(broken: boolean, message: string): string | null {
  return broken ? message : null;
}
