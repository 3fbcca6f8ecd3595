// A task of the built-in SWE environment (its task_meta): a tiny repository (its files), which of them are the
// tests, the bash command that runs them (exit 0: they pass), the issue the model is given, and the reference fix.
import { z } from "zod";
import { taskKeySchema } from "../task-catalogue.ts";

export const textReplacementSchema = z.object({
  path: z.string().min(1),
  old_text: z.string().min(1),
  new_text: z.string(),
});

export const repositoryTaskSchema = taskKeySchema.extend({
  instruction: z.string().min(1).describe("The issue: what fails and what it should do; the model's first user message opens with it."),
  files: z.record(z.string().min(1), z.string()).refine((files) => Object.keys(files).length > 0, "a task needs at least one file").describe("The repository: path → content, written into the episode's folder."),
  test_files: z.array(z.string().min(1)).min(1).describe("The files that are the tests: put back as shipped before /evaluate runs them."),
  test_command: z.string().min(1).describe("bash run in the folder by run_tests and /evaluate: exit 0 means the tests pass."),
  reference_fix: z.array(textReplacementSchema).min(1).describe("A fix that makes the tests pass (for the environment's own tests; never shown to the model)."),
}).superRefine((task, context) => {
  for (const file of [...task.test_files, ...task.reference_fix.map((replacement) => replacement.path)]) {
    if (!(file in task.files)) context.addIssue({ code: "custom", path: ["files"], message: `${file} is named but not among the files` });
  }
});

export type RepositoryTask = z.infer<typeof repositoryTaskSchema>;
export type TextReplacement = z.infer<typeof textReplacementSchema>;
