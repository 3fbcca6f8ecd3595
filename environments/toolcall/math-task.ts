// A math word problem of the tool-call environment (its task_meta: the question and an integer answer) and the one
// rule of whether a submitted answer is right: equal to the task's answer as a number, after light normalisation.
import { z } from "zod";
import { taskKeySchema } from "../task-catalogue.ts";

export const mathTaskSchema = taskKeySchema.extend({
  question: z.string().min(1),
  answer: z.union([z.number(), z.string().min(1)]).describe("The right answer; compared numerically when both sides are numbers."),
});

export type MathTask = z.infer<typeof mathTaskSchema>;

/** `\boxed{1,234}`, ` 1234 `, `$1234`, `1234.0` all read as 1234; text that is not a number stays text. */
export function normaliseAnswer(answer: string | number): number | string {
  if (typeof answer === "number") return answer;
  const boxed = /^\\boxed\{(.*)\}$/s.exec(answer.trim());
  const text = (boxed ? boxed[1]! : answer).trim().replace(/^\$/, "").replace(/(\d),(?=\d{3}\b)/g, "$1").trim();
  const number = text === "" ? Number.NaN : Number(text);
  return Number.isFinite(number) ? number : text;
}

export function isRightAnswer(submitted: string | number, task: MathTask): boolean {
  return normaliseAnswer(submitted) === normaliseAnswer(task.answer);
}
