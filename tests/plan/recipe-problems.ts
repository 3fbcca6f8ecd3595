// The problems parseRecipe reports for a raw recipe, one line each (YAML path: message (hint)); [] when it parses.
import { OpenclawRlErrorList } from "../../contracts/errors.ts";
import { parseRecipe } from "../../cli/recipe-file.ts";

export function recipeProblems(raw: unknown): string[] {
  try {
    parseRecipe(raw);
  } catch (error) {
    if (error instanceof OpenclawRlErrorList) return error.errors.map((item) => item.toLine());
    throw error;
  }
  return [];
}
