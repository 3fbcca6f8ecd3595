// The recipe: the schema composed from its sections (contracts/recipe/, one file per section, each key with its
// default and description), resolved once (recipe.derived) and checked, with the public names importers use.
// Ignores loading files (cli/recipe-file.ts).
import type { z } from "zod";
import { checkRecipe } from "./recipe/cross-checks.ts";
import { resolveRecipe, type ResolvedRecipe } from "./recipe/resolved-recipe.ts";
import { recipeObjectSchema } from "./recipe/settings.ts";

export { methodSchema, type Method } from "./recipe/method.ts";
export type { ModelFamilyName } from "./recipe/model.ts";
export { recipeSettingsOf, resolveRecipe, type RecipeDerivedValues, type ResolvedRecipe } from "./recipe/resolved-recipe.ts";
export type { SampleGateSettings } from "./recipe/sample-gate.ts";
export { recipeObjectSchema, type RecipeSettings } from "./recipe/settings.ts";

/** The recipe as `start` and every command parse it: the keys, resolved once, then the checks that need several keys. */
export const recipeSchema = recipeObjectSchema.transform(resolveRecipe).superRefine(checkRecipe);

/** A parsed recipe, always resolved: the name importers use. */
export type Recipe = ResolvedRecipe;
export type RecipeInput = z.input<typeof recipeSchema>;
