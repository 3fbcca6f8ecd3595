// The stand-in model's next-token log-probs at a sampling temperature, as SGLang's sampler gives them (prefill
// log-probs stay at 1, as SGLang's do). Pure math on the distribution topRow describes; no I/O.
import { topRow } from "./responder.ts";

/** SGLang's sampler temperature: the request's, 1 when absent or greedy (tests/fixtures/sglang/logprob-temperature.json). */
export function samplerTemperature(params: { temperature?: number | null }): number {
  const temperature = params.temperature ?? 1;
  return temperature < 1e-6 ? 1 : temperature;
}

/**
 * The distribution around `token` whose log-prob at temperature 1 is `logprob` (topRow's: the token, then the rest
 * of the mass halving id by id), at `temperature`: the token's log-prob and the top-K row. With rest r = 1 − p and
 * q = 0.5^(1/T), the normaliser is p^(1/T) + r^(1/T)·q/(1 − q); at T = 1 it is 1 and nothing changes.
 */
export function atTemperature(token: number, logprob: number, temperature: number, k: number): { logprob: number; top: Array<[number, number]> } {
  if (temperature === 1) return { logprob, top: topRow(token, logprob, k) };
  const rest = Math.max(1 - Math.exp(logprob), 1e-6);
  const q = 0.5 ** (1 / temperature);
  const normaliser = Math.log(Math.exp(logprob / temperature) + rest ** (1 / temperature) * (q / (1 - q)));
  const scale = (value: number) => value / temperature - normaliser;
  return { logprob: scale(logprob), top: topRow(token, logprob, k).map(([value, id]) => [scale(value), id]) };
}
