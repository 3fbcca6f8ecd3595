// The JSON line engine_probe.py prints: what the slime environment's Python sees of slime and SGLang, as facts.
// Ignores what the facts mean for a recipe (installation-match.ts) and how the probe is run (engine-probe.ts).
import { z } from "zod";

const nullableString = z.string().nullable();

export const slimeProbeSchema = z.object({
  root: z.string(),
  root_exists: z.boolean(),
  /** engine.slime.root/train_async.py, the driver the job runs. */
  train_async: z.boolean(),
  importable: z.boolean(),
  error: nullableString,
  /** The folder `import slime` resolved to. */
  package_dir: nullableString,
  /** `import slime` found a folder without __init__.py (e.g. the OpenClaw-RL checkout around the real one). */
  namespace: z.boolean(),
  /** When namespace: the folder below it that holds the slime package, i.e. the root that was meant. */
  nested_checkout: nullableString,
  arguments: z
    .object({
      /** Option strings found in add_argument calls of slime/utils/arguments.py. */
      markers: z.record(z.string(), z.boolean()),
      advantage_estimators: z.array(z.string()).nullable(),
      train_backends: z.array(z.string()).nullable(),
    })
    .nullable(),
  arguments_error: nullableString,
  /** slime/backends/fsdp_utils exists (the fork's FSDP trainer). */
  fsdp_backend: z.boolean().nullable(),
});

export const sglangProbeSchema = z.object({
  importable: z.boolean(),
  error: nullableString,
  version: nullableString,
  package_dir: nullableString,
  /** Which streaming fields ServerArgs (a dataclass) has. */
  fields: z.object({ stream_output: z.boolean(), incremental_streaming_output: z.boolean() }).nullable(),
  fields_error: nullableString,
  /** The dest of each streaming CLI option ServerArgs.add_cli_args defines, null when it defines none. */
  options: z.object({ "--stream-output": nullableString, "--incremental-streaming-output": nullableString }).nullable(),
  options_error: nullableString,
  /** The --tool-call-parser choices ("auto" left out). */
  tool_call_parsers: z.array(z.string()).nullable(),
  /** tokenizer_manager.py holds the helper that slices streamed log-probs (SGLang v0.5.11 and later). */
  log_prob_slicing: z.boolean().nullable(),
  log_prob_slicing_error: nullableString,
});

export const engineProbeReportSchema = z.object({
  report_version: z.literal(1),
  python: z.object({ executable: z.string(), version: z.string() }),
  slime: slimeProbeSchema,
  sglang: sglangProbeSchema,
});

export type SlimeProbe = z.infer<typeof slimeProbeSchema>;
export type SglangProbe = z.infer<typeof sglangProbeSchema>;
export type EngineProbeReport = z.infer<typeof engineProbeReportSchema>;

/** The probe's report plus the commit of the slime checkout (git, run by the caller). */
export interface EngineInstallation {
  report: EngineProbeReport;
  /** `git rev-parse HEAD` in the folder holding the slime package; null when it is not a git checkout. */
  commit: string | null;
}
