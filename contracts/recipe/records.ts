// The recipe's `records` section: the run folder. Ignores what is written inside it.
import { z } from "zod";

export const recordsSchema = z
  .object({
    dir: z.string().min(1).default(".openclaw-rl/run").describe("Run folder: turn and judgement records, the sample store, logs, the resolved recipe."),
  })
  .strict()
  .prefault({});
