// The recipe's `engine.rehearsal` section: the CPU stand-ins' ports, learning and streaming. Ignores the stand-ins themselves.
import { z } from "zod";
import { STREAM_FORMS } from "../sglang.ts";
import { port } from "./scalars.ts";

export const rehearsalSchema = z
  .object({
    policy_port: port.default(31100).describe("Port of the stand-in policy server."),
    judge_port: port.default(31101).describe("Port of the stand-in judge server."),
    learn: z.enum(["auto", "on", "off"]).default("auto").describe("Stand-in trainer updates the stand-in policy with native/ losses when torch imports (auto), always (on) or never (off)."),
    train_seconds: z.number().min(0).default(1).describe("How long the stand-in trainer 'trains' on a batch."),
    seed: z.number().int().default(0).describe("Seed of the stand-in policy."),
    keep_policies: z
      .number()
      .int()
      .min(0)
      .default(3)
      .describe("Saved stand-in policies kept in <records.dir>/standin-policy/ (policy-vN.json, the newest N; 0 keeps every one): what `openclaw-rl eval --checkpoint vN` can evaluate."),
    stream_form: z
      .enum(STREAM_FORMS)
      .optional()
      .describe(
        "How the stand-in policy streams /generate, as one of SGLang's forms: cumulative (every chunk repeats the whole answer), incremental (every field a delta) or legacy (only output ids are deltas). Default: the form the real flavour's SGLang would use with engine.slime.stream_output_flag (fork: legacy; upstream: incremental; none: cumulative).",
      ),
  })
  .strict()
  .prefault({});
