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

/** The recipe the options name; a --set that changes nothing is said on stderr (a knob tried that cannot move). */
export function recipeFromOptions(options: CommonOptions): LoadedRecipe {
  const loaded = loadRecipe({ recipe: options.recipe, method: options.method, set: options.set });
  for (const line of loaded.unchanged) process.stderr.write(`note: ${line}\n`);
  return loaded;
}
