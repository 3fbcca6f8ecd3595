// The stand-in's answer to token_ids_logprob: at each output position, the asked ids' log-probs from the sampler at
// the request's temperature (output_token_ids_logprobs), as SGLang gives them. Ignores the sampled token's own value.
import { atTemperature } from "../model/temperature.ts";
import type { LogprobTuple, LogprobView } from "./wire.ts";

interface Row {
  ids: LogprobTuple[];
  top: LogprobTuple[];
}

/**
 * The stand-in's model is a prefill score per token (log P(id | context) at temperature 1) and the distribution
 * topRow builds around one token. An asked id is scored in the position's context and taken to the temperature;
 * with top_logprobs_num the position's top-K row is that of the distribution around the first asked id (the
 * stand-in has no one distribution per context: this keeps the row and the asked values of one position agreeing).
 */
export class SampledPositions {
  private readonly rows: Row[] = [];

  constructor(
    private readonly inputIds: readonly number[],
    private readonly view: LogprobView,
    private readonly score: (ids: readonly number[]) => Promise<number[]>,
  ) {}

  /** Scores the positions of `outputIds` not scored yet (position j's context is the input and outputIds[:j]). */
  async load(outputIds: readonly number[]): Promise<void> {
    const asked = this.view.tokenIdsLogprob ?? [];
    const text = (id: number) => (this.view.tokenText ? this.view.tokenText(id) : null);
    for (let position = this.rows.length; position < outputIds.length; position += 1) {
      const context = [...this.inputIds, ...outputIds.slice(0, position)];
      const row: Row = { ids: [], top: [] };
      for (const [index, id] of asked.entries()) {
        const scores = await this.score([...context, id]);
        const scaled = atTemperature(id, scores.at(-1) ?? 0, this.view.temperature, this.view.topLogprobsNum);
        row.ids.push([scaled.logprob, id, text(id)]);
        if (index === 0) row.top = scaled.top.map(([value, top]) => [value, top, text(top)]);
      }
      this.rows.push(row);
    }
  }

  /** The meta_info fields for output positions [from, to); input_token_ids_logprobs is left empty (not modelled). */
  fields(from: number, to: number): Record<string, unknown> {
    const rows = this.rows.slice(from, to);
    return {
      input_token_ids_logprobs: [],
      output_token_ids_logprobs: rows.map((row) => row.ids),
      ...(this.view.topLogprobsNum > 0 ? { output_top_logprobs: rows.map((row) => row.top) } : {}),
    };
  }
}
