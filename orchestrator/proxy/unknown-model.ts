// A request naming a model the proxy does not serve gets the error OpenAI's API gives (404 model_not_found; under
// /v1/messages Anthropic's not_found_error, from the same status), so a typo surfaces instead of being echoed back.
// The names accepted are lib/model/model-names.ts's; a request without a model is the served model's.
import type { Recipe } from "../../contracts/recipe.ts";
import { acceptedModelNames } from "../../lib/model/model-names.ts";
import { openAiError, type OpenAiError } from "./openai-errors.ts";

export function unknownModel(recipe: Recipe, model: string | undefined): OpenAiError | null {
  if (model === undefined || acceptedModelNames(recipe).includes(model)) return null;
  return openAiError(404, `The model \`${model}\` does not exist or you do not have access to it.`, { code: "model_not_found" });
}
