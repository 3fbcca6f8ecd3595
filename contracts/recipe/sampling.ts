// The recipe's `sampling` section: how main turns are sampled. Ignores side turns' settings, which the client owns.
import { z } from "zod";

export const samplingSchema = z
  .object({
    temperature: z
      .number()
      .min(0)
      .max(2)
      .default(0.6)
      .describe(
        "The rollout temperature (slime's --rollout-temperature, the reference serves at 0.6): every main turn is sampled at it whatever the client sends, since slime recomputes the trained log-probs at it; side turns use the client's temperature, this one when it sends none.",
      ),
    top_p: z
      .number()
      .gt(0)
      .max(1)
      .default(1.0)
      .describe("Nucleus sampling of main turns. 1 only: neither slime flavour's trainer applies a top-p filter to the log-probs it recomputes (upstream replays one only with its patched SGLang's kept-token sets), so a filtered main turn would be trained off-policy. Side turns use the client's top_p."),
    top_k: z.number().int().default(-1).describe("Top-k sampling of main turns. -1 (off) only, for the reason top_p gives. Side turns use the client's top_k."),
    client_settings: z
      .enum(["trainer", "honor"])
      .default("trainer")
      .describe(
        "What a client's own sampling settings (temperature, top_p, top_k, min_p, penalties) do on main turns. trainer: main turns use the distribution slime trains (sampling.temperature, no filter, no penalty) and status counts the client's values; honor: main turns use the client's values, and a turn drawn from another distribution than the trainer's is recorded as off-policy and not trained. Side turns always use the client's values.",
      ),
  })
  .strict()
  .prefault({});
