// The options every command takes: --recipe FILE, --method M, repeatable --set dotted.key=value.
import type { Command } from "commander";
import { methodSchema } from "../contracts/recipe.ts";
import { loadRecipe, type LoadedRecipe } from "./recipe-file.ts";

export interface CommonOptions {
  recipe?: string;
  method?: string;
  set: string[];
}

export function withRecipeOptions(command: Command): Command {
  return command
    .option("--recipe <file>", "recipe YAML (default: configs/rehearsal.yaml)")
    .option("--method <method>", `${methodSchema.options.join(" | ")} (overrides the recipe)`)
    .option("--set <key=value>", "override a recipe key, e.g. --set training.lr=2e-5 (repeatable)", (value: string, previous: string[]) => [...previous, value], [] as string[]);
}

export function recipeFromOptions(options: CommonOptions): LoadedRecipe {
  return loadRecipe({ recipe: options.recipe, method: options.method, set: options.set });
}
