// Maps an OpenAI chat request's sampling fields to SGLang /generate sampling_params: main turns from the distribution
// slime trains (unless the recipe honours the client), side turns with the client's own values. Ignores prompts.
import type { ChatRequest } from "../../contracts/chat.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { SamplingParams } from "../../contracts/sglang.ts";
import type { TurnSampling } from "../../contracts/turn.ts";

export interface MappedSampling {
  params: SamplingParams & Record<string, unknown>;
  maxNewTokens: number;
  stop: string[];
  /** What the turn is drawn with, for its record and its sample. */
  sampling: TurnSampling;
}

/** The request fields that set how a response is sampled: the client's, replaced by the turn's own (turnSampling). */
export const CLIENT_SAMPLING_KEYS = ["temperature", "top_p", "top_k", "min_p", "presence_penalty", "frequency_penalty", "repetition_penalty", "min_tokens"] as const;

/** The client's own sampling settings, as sent (null and absent fields left out). */
export function clientSampling(request: ChatRequest): Record<string, number> {
  const asked: Record<string, number> = {};
  for (const key of CLIENT_SAMPLING_KEYS) {
    const value = request[key];
    if (typeof value === "number") asked[key] = value;
  }
  return asked;
}

/**
 * The sampling a turn is drawn with. Main turns, with `sampling.client_settings: trainer` (the default): the rollout
 * temperature, no filter, no penalty, whatever the client sent (what it asked for otherwise is kept in `clientAsked`).
 * Side turns, and main turns with `honor`: the client's values over the recipe's, on-policy only where they come to
 * the same distribution. A value that changes nothing (top_p 1, top_k -1, min_p 0, penalties 0 or repetition 1) is
 * no departure.
 */
export function turnSampling(request: ChatRequest, recipe: Recipe, turnType: "main" | "side"): TurnSampling {
  const trainer = { temperature: recipe.sampling.temperature, top_p: recipe.sampling.top_p, top_k: recipe.sampling.top_k };
  const asked = clientSampling(request);
  const departures = Object.fromEntries(Object.entries(asked).filter(([key, value]) => !sameAsTrainer(key, value, trainer.temperature)));
  if (turnType === "main" && recipe.sampling.client_settings === "trainer") return { ...trainer, onPolicy: true, clientAsked: departures };
  const { temperature = trainer.temperature, top_p = trainer.top_p, top_k = trainer.top_k, ...rest } = asked;
  return { ...rest, temperature, top_p, top_k, onPolicy: Object.keys(departures).length === 0, clientAsked: {} };
}

/** The values a turn is drawn with, as an engine takes them: its record's bookkeeping (onPolicy, clientAsked, constrained) left out. */
export function drawnValues(sampling: TurnSampling): Omit<TurnSampling, "onPolicy" | "clientAsked" | "constrained"> {
  const { onPolicy: _onPolicy, clientAsked: _clientAsked, constrained: _constrained, ...drawn } = sampling;
  return drawn;
}

function sameAsTrainer(key: string, value: number, rolloutTemperature: number): boolean {
  switch (key) {
    case "temperature":
      return value === rolloutTemperature;
    case "top_p":
    case "repetition_penalty":
      return value === 1;
    case "top_k":
      return value === -1 || value === 0;
    default:
      return value === 0; // min_p, presence and frequency penalties, min_tokens (EOS masked until then)
  }
}

export function mapSampling(request: ChatRequest, recipe: Recipe, promptLength: number, turnType: "main" | "side"): MappedSampling {
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
  const sampling = turnSampling(request, recipe, turnType);
  const { min_tokens: minTokens, ...drawn } = drawnValues(sampling);
  const params: SamplingParams & Record<string, unknown> = {
    ...drawn,
    skip_special_tokens: false,
    no_stop_trim: true,
    spaces_between_special_tokens: false,
  };
  if (stop.length > 0) params.stop = stop;
  if (request.seed !== undefined && request.seed !== null) params.sampling_seed = request.seed;
  // (vLLM's name for it; SGLang refuses min_new_tokens above max_new_tokens, which can be lower than asked)
  if (minTokens !== undefined && minTokens > 0) params.min_new_tokens = Math.min(minTokens, maxNewTokens);
  return { params, maxNewTokens, stop, sampling };
}
