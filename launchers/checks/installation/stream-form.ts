// Which /generate streaming form engine.slime.stream_output_flag produces on the installed SGLang, or why slime
// would reject the flag. slime re-adds every ServerArgs.add_cli_args option with a --sglang- prefix, so the flag
// exists when SGLang's parser defines the unprefixed option. Ignores the proxy (it reads whatever form arrives).
import type { Recipe } from "../../../contracts/recipe.ts";
import type { StreamForm } from "../../../contracts/sglang.ts";
import type { SglangProbe } from "./engine-probe-report.ts";

export type StreamFlag = Recipe["engine"]["slime"]["stream_output_flag"];

export type { StreamForm };

export type StreamOutcome =
  | { kind: "form"; form: StreamForm; field: string | null }
  | { kind: "rejected"; option: string }
  | { kind: "unknown"; reason: string };

export const STREAM_FORM_TEXT: Record<StreamForm, string> = {
  cumulative: "every chunk repeats the whole answer so far (output ids, text and log-probs cumulative)",
  legacy: "output ids arrive as deltas while log-probs stay cumulative (SGLang before v0.5.11 slices no log-probs)",
  incremental: "output ids, text and log-probs arrive as deltas",
};

const FIELD_OF_OPTION: Record<string, "stream_output" | "incremental_streaming_output"> = {
  "--stream-output": "stream_output",
  "--incremental-streaming-output": "incremental_streaming_output",
};

/** SGLang's option behind a slime --sglang-* flag. */
export function sglangOption(flag: Exclude<StreamFlag, "none">): "--stream-output" | "--incremental-streaming-output" {
  return flag === "--sglang-stream-output" ? "--stream-output" : "--incremental-streaming-output";
}

export function streamFormFor(flag: StreamFlag, sglang: SglangProbe): StreamOutcome {
  if (flag === "none") return { kind: "form", form: "cumulative", field: null };
  const option = sglangOption(flag);
  let field: string | null;
  if (sglang.options) {
    field = sglang.options[option];
  } else if (sglang.fields) {
    // SGLang's parser could not be built: fall back to the dataclass field of the same name (no aliases then).
    field = sglang.fields[FIELD_OF_OPTION[option]!] ? FIELD_OF_OPTION[option]! : null;
  } else {
    return { kind: "unknown", reason: `SGLang's server arguments could not be read (${sglang.options_error ?? sglang.fields_error ?? "no report"})` };
  }
  if (field === null) return { kind: "rejected", option };
  // stream_output is the field of SGLang before the rename (fc7f9c1d, v0.5.10): it never sliced log-probs.
  if (field === "stream_output") return { kind: "form", form: "legacy", field };
  if (sglang.log_prob_slicing === null) {
    return { kind: "unknown", reason: `${field} is set, but whether this SGLang slices streamed log-probs could not be read (${sglang.log_prob_slicing_error ?? "no report"})` };
  }
  return { kind: "form", form: sglang.log_prob_slicing ? "incremental" : "legacy", field };
}
