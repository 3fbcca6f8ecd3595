// Maps an OpenAI chat request's sampling fields to SGLang /generate sampling_params, with the recipe's
// defaults where the client sends none and the flags that keep output ids exact. Ignores prompts.
import type { ChatRequest } from "../../contracts/chat.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { SamplingParams } from "../../contracts/sglang.ts";

export interface MappedSampling {
  params: SamplingParams & Record<string, unknown>;
  maxNewTokens: number;
  stop: string[];
}

export function mapSampling(request: ChatRequest, recipe: Recipe, promptLength: number): MappedSampling {
  const room = recipe.model.context_length - promptLength;
  if (room <= 0) {
    throw new OpenclawRlError("BAD_REQUEST", `the prompt is ${promptLength} tokens, the model's context is ${recipe.model.context_length}`, {
      path: "messages",
      hint: "shorten or compact the conversation",
    });
  }
  const asked = request.max_completion_tokens ?? request.max_tokens ?? recipe.model.max_response_tokens;
  const maxNewTokens = Math.min(asked, recipe.model.max_response_tokens, room);
  const stop = request.stop === undefined || request.stop === null ? [] : typeof request.stop === "string" ? [request.stop] : request.stop;
  const params: SamplingParams & Record<string, unknown> = {
    temperature: request.temperature ?? recipe.sampling.temperature,
    top_p: request.top_p ?? recipe.sampling.top_p,
    top_k: request.top_k ?? recipe.sampling.top_k,
    skip_special_tokens: false,
    no_stop_trim: true,
    spaces_between_special_tokens: false,
  };
  if (stop.length > 0) params.stop = stop;
  if (request.seed !== undefined && request.seed !== null) params.sampling_seed = request.seed;
  if (request.presence_penalty !== undefined && request.presence_penalty !== null) params.presence_penalty = request.presence_penalty;
  if (request.frequency_penalty !== undefined && request.frequency_penalty !== null) params.frequency_penalty = request.frequency_penalty;
  if (request.min_p !== undefined && request.min_p !== null) params.min_p = request.min_p;
  if (request.repetition_penalty !== undefined && request.repetition_penalty !== null) params.repetition_penalty = request.repetition_penalty;
  // (vLLM's name for it; SGLang refuses min_new_tokens above max_new_tokens, which can be lower than asked)
  if (request.min_tokens !== undefined && request.min_tokens !== null && request.min_tokens > 0) params.min_new_tokens = Math.min(request.min_tokens, maxNewTokens);
  return { params, maxNewTokens, stop };
}
