// A request naming a model the proxy does not serve gets the error OpenAI's API gives (404 model_not_found; under
// /v1/messages Anthropic's not_found_error, from the same status), so a typo surfaces instead of being echoed back;
// its message goes on with the names served and model.aliases, the way to accept another.
// The names accepted are lib/model/model-names.ts's; a request without a model is the served model's.
import type { Recipe } from "../../contracts/recipe.ts";
import { acceptedModelNames } from "../../lib/model/model-names.ts";
import { openAiError, type OpenAiError } from "./openai-errors.ts";

export function unknownModel(recipe: Recipe, model: string | undefined): OpenAiError | null {
  const accepted = acceptedModelNames(recipe);
  if (model === undefined || accepted.includes(model)) return null;
  const served = accepted.map((name) => `\`${name}\``).join(", ");
  return openAiError(404, `The model \`${model}\` does not exist or you do not have access to it. This proxy serves ${served} (GET /v1/models); to accept \`${model}\` as well, add it to model.aliases in the recipe.`, { code: "model_not_found" });
}
