// The recipe's `combine` section: the weights of method combine's two terms. Ignores the teacher (opd section).
import { z } from "zod";

export const combineSchema = z
  .object({
    w_rl: z.number().min(0).default(1.0).describe("Weight of the judge reward term in the combined advantage."),
    w_opd: z.number().min(0).default(1.0).describe("Weight of the teacher − old log-prob term in the combined advantage."),
  })
  .strict()
  .prefault({});
