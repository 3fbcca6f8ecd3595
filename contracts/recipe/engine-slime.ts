// The recipe's `engine.slime` section: which slime is installed and how it is launched. Ignores the launch plan itself.
import { z } from "zod";
import type { StreamForm } from "../sglang.ts";
import { positiveInt } from "./scalars.ts";

/** The --sglang-* stream flag each slime flavour's SGLang has (see engine.slime.stream_output_flag). */
export const STREAM_OUTPUT_FLAG_OF_FLAVOR = {
  fork: "--sglang-stream-output",
  upstream: "--sglang-incremental-streaming-output",
} as const;

/** The streaming form the recipe's slime flavour and stream flag give on that flavour's SGLang (the stand-in's default). */
export function streamFormOf(slime: { flavor: keyof typeof STREAM_OUTPUT_FLAG_OF_FLAVOR; stream_output_flag: string }): StreamForm {
  if (slime.stream_output_flag === "none") return "cumulative";
  return slime.flavor === "fork" ? "legacy" : "incremental";
}

export const slimeSchema = z
  .object({
    flavor: z
      .enum(["fork", "upstream"])
      .default("fork")
      .describe(
        "Which slime is installed: fork = the OpenClaw-RL fork's slime with its SGLang; upstream = THUDM/slime with its SGLang (docs/plan.md names the versions). The plan passes only options that flavour's parser accepts, and refuses what the flavour cannot do (upstream: no LoRA/FSDP, no top-K OPD, no judge.launch slime).",
      ),
    root: z.string().default("/opt/slime").describe("slime checkout (holds train_async.py)."),
    megatron_root: z.string().default("/opt/Megatron-LM").describe("Megatron-LM checkout (added to PYTHONPATH)."),
    model_args: z.string().optional().describe("slime scripts/models/*.sh file whose MODEL_ARGS describe the architecture (read by sourcing it in bash); default <root>/scripts/models/qwen3-4B.sh."),
    rotary_base: positiveInt
      .optional()
      .describe("--rotary-base of the policy; replaces the value in the model-args file (Qwen3-4B-Thinking-2507: 5000000, the model file says 1000000)."),
    python: z.string().default("python3").describe("Python interpreter of the slime environment."),
    ray: z.string().default("ray").describe("ray executable of the slime environment."),
    mem_fraction_static: z.number().gt(0).lt(1).default(0.8).describe("--sglang-mem-fraction-static."),
    stream_output_flag: z
      .enum(["--sglang-stream-output", "--sglang-incremental-streaming-output", "none"])
      .optional()
      .describe(
        "Makes SGLang stream only the new part of each /generate chunk instead of repeating the whole answer so far. Default: the flag of the flavour's SGLang (fork: --sglang-stream-output; upstream: --sglang-incremental-streaming-output); none keeps cumulative chunks. The fork's SGLang has no incremental flag, so that pair is refused.",
      ),
    extra_args: z.array(z.string()).default([]).describe("More train_async.py flags, appended last."),
    env: z.record(z.string(), z.string()).default({}).describe("More environment variables for every slime process."),
  })
  .strict()
  // The stream flag's default depends on the flavour, so it is filled in here: every later reader sees a concrete flag.
  .transform((slime) => ({ ...slime, stream_output_flag: slime.stream_output_flag ?? STREAM_OUTPUT_FLAG_OF_FLAVOR[slime.flavor] }))
  .prefault({});
