// The recipe's `wandb` section: Weights & Biases logging. Ignores the trainer's metrics.
import { z } from "zod";

export const wandbSchema = z
  .object({
    enabled: z.boolean().default(false).describe("Log training to Weights & Biases."),
    project: z.string().default("openclaw_rl").describe("W&B project."),
    group: z.string().optional().describe("W&B group; defaults to <served_name>-<method>."),
    key_env: z.string().default("WANDB_API_KEY").describe("Variable holding the W&B key; passed through the environment, never on a command line."),
  })
  .strict()
  .prefault({});
