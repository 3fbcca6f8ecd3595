// The recipe's `training.fair_batch` section: how much of a batch one session may hold. Ignores batch making itself.
import { z } from "zod";

export const fairBatchSchema = z
  .object({
    max_session_share: z
      .number()
      .gt(0)
      .max(1)
      .default(0.25)
      .describe("The most of a batch one session may hold once at least 1/max_session_share sessions are active (have a sample ready); with fewer active sessions each may hold an equal part of the batch (one user alone: all of it, no waiting). A chatty or looping session's other samples wait for later batches, in order, and one that the next weight version would make stale goes out then whatever the share (none is lost to it). An episode's steps count by task group, and a group's held-back steps complete a short batch at once. 1 turns it off."),
    relax_after_s: z
      .number()
      .min(0)
      .default(300)
      .describe("When no full batch can be made within the share (the active sessions hold unequal numbers of ready samples, e.g. a looping session beside one that spoke once) and a held-back chat sample has waited this long, the batch is completed with held-back samples, oldest first (episode steps do not wait: see max_session_share)."),
  })
  .strict()
  .prefault({});
export type FairBatchSettings = z.infer<typeof fairBatchSchema>;
