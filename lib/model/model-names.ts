// The model ids the proxy answers to: the served name, the recipe's aliases of it, and the utility models (side
// requests). One home for the names agent-config writes into clients and the proxy accepts; ignores routing.
import type { Recipe } from "../../contracts/recipe.ts";

/** The utility (small/fast) model name: the recipe's first proxy.utility_models entry, else `<served_name>-utility`. */
export function utilityModelName(recipe: Recipe): string {
  return recipe.proxy.utility_models[0] ?? `${recipe.model.served_name}-utility`;
}

/** The ids of the served model itself (main turns): the served name and its aliases. */
export function mainModelNames(recipe: Recipe): string[] {
  return unique([recipe.model.served_name, ...recipe.model.aliases]);
}

/** Every id the proxy answers to, in /v1/models' order: the served name, its aliases, then the utility models. */
export function acceptedModelNames(recipe: Recipe): string[] {
  const utility = recipe.proxy.utility_models.length > 0 ? recipe.proxy.utility_models : [utilityModelName(recipe)];
  return unique([...mainModelNames(recipe), ...utility]);
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
