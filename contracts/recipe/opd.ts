// The recipe's `opd` section: hindsight-hint distillation's top-K width, hint length and teacher. Ignores the hybrid's own keys.
import { z } from "zod";

export const opdSchema = z
  .object({
    topk: z.number().int().min(0).max(1000).default(0).describe("Teacher top-K log-probs per position for the K+1-bin reverse-KL loss (0 = token-level OPD)."),
    min_hint_chars: z.number().int().min(0).default(10).describe("A hint must be longer than this to be kept (the reference's 10)."),
    teacher_temperature: z
      .number()
      .min(0.01)
      .max(2)
      .optional()
      .describe(
        "Temperature of the teacher's log-probs; defaults to sampling.temperature, the temperature of the student's rollout log-probs and of slime's recomputed ones (--rollout-temperature), so teacher − old compares like with like. SGLang's prefill (input) log-probs are always at 1, so any other value is scored one request per response token through SGLang's sampler (exact, slower; see docs/judging.md).",
      ),
    teacher: z
      .enum(["engine", "trainer"])
      .optional()
      .describe(
        "Where the teacher's log-probs are computed. engine: the judge engine scores each hinted turn. trainer: the trainer runs one forward pass of a frozen teacher (on slime the training.ref_load checkpoint, else model.path) over the hinted prompt + response, exact at any temperature, with no judge-engine request. Unset: trainer wherever the trainer can run it, else engine (`npx openclaw-rl plan` says which). docs/judging.md.",
      ),
  })
  .strict()
  .prefault({});
