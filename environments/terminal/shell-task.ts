// A task of the terminal environment (its task_meta): what to do, a setup script that prepares the working folder
// and a check script that exits 0 when the task is done. Both are bash, run in the episode's sandbox.
import { z } from "zod";
import { taskKeySchema } from "../task-catalogue.ts";

export const shellTaskSchema = taskKeySchema.extend({
  instruction: z.string().min(1).describe("What the model is asked to do; its first user message."),
  setup: z.string().default("").describe("bash run in the empty working folder before the episode starts; must exit 0."),
  check: z.string().min(1).describe("bash run in the working folder by /evaluate: exit 0 scores 1, anything else 0."),
});

export type ShellTask = z.infer<typeof shellTaskSchema>;
