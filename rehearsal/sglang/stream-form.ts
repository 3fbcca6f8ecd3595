// SGLang's three forms of a streamed /generate, field by field, as the stand-in sends them; the facts, with the
// commits and lines they were read from, are in tests/fixtures/sglang/stream-forms.json. Ignores the HTTP framing.

import type { StreamForm } from "../../contracts/sglang.ts";

export type { StreamForm };

export interface StreamFormFields {
  /** output_ids carry only the tokens after the previous chunk's. */
  idsAreDeltas: boolean;
  /** text carries only what is new. */
  textIsDelta: boolean;
  /** meta_info.output_token_logprobs (and the output top / token-ids log-probs) carry only the new positions. */
  logprobsAreDeltas: boolean;
  /** meta_info.output_token_logprobs_length (the whole count) is sent with the log-probs. */
  logprobsLength: boolean;
}

export const STREAM_FORMS: Record<StreamForm, StreamFormFields> = {
  // no flag: every chunk repeats the whole answer so far
  cumulative: { idsAreDeltas: false, textIsDelta: false, logprobsAreDeltas: false, logprobsLength: true },
  // --incremental-streaming-output (0.5.11+; --stream-output is its alias there): every field a delta
  incremental: { idsAreDeltas: true, textIsDelta: true, logprobsAreDeltas: true, logprobsLength: true },
  // --stream-output before 0.5.11 (the fork's dce8b060): only output_ids are deltas
  legacy: { idsAreDeltas: true, textIsDelta: false, logprobsAreDeltas: false, logprobsLength: false },
};
