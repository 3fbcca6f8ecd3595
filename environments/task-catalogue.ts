// The tasks an environment ships: a JSONL file in the reference's form, one {"task_meta": {...}} per line, each
// task_meta checked with the environment's zod schema and found by its task_path. /reset's task_meta is read against
// the same schema: a whole task is used as it is, a bare {task_name, task_path} is looked up here.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { OpenclawRlError } from "../contracts/errors.ts";

export const taskKeySchema = z.object({ task_name: z.string().min(1), task_path: z.string().min(1) });

export class TaskCatalogue<Task extends z.infer<typeof taskKeySchema>> {
  private readonly byPath: Map<string, Task>;

  private constructor(
    readonly file: string,
    private readonly schema: z.ZodType<Task>,
    tasks: Task[],
  ) {
    this.byPath = new Map(tasks.map((task) => [task.task_path, task]));
  }

  /** Reads and checks every line of `file`; a bad line is an error naming the file, the line and the field. */
  static async read<Task extends z.infer<typeof taskKeySchema>>(file: string, schema: z.ZodType<Task>): Promise<TaskCatalogue<Task>> {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (cause) {
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `cannot read the task file ${file}`, { path: file, cause, hint: "pass --tasks with a JSONL file of tasks" });
    }
    const tasks: Task[] = [];
    const lines = text.split("\n");
    for (const [index, line] of lines.entries()) {
      if (line.trim() === "") continue;
      const parsed = z.object({ task_meta: schema }).safeParse(parseJson(line));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new OpenclawRlError("ENVIRONMENT_ERROR", `${file} line ${index + 1}: ${issue.path.join(".") || "line"}: ${issue.message}`, {
          path: file,
          hint: 'one {"task_meta": {...}} per line; see docs/episodes.md',
        });
      }
      tasks.push(parsed.data.task_meta);
    }
    if (tasks.length === 0) throw new OpenclawRlError("ENVIRONMENT_ERROR", `${file} holds no task`, { path: file });
    return new TaskCatalogue(file, schema, tasks);
  }

  get tasks(): Task[] {
    return [...this.byPath.values()];
  }

  /** The task /reset's task_meta names: itself when it is a whole task, else this file's task of that task_path. */
  resolve(taskMeta: Record<string, unknown>): Task {
    const whole = this.schema.safeParse(taskMeta);
    if (whole.success) return whole.data;
    const key = taskKeySchema.safeParse(taskMeta);
    const known = key.success ? this.byPath.get(key.data.task_path) : undefined;
    if (known) return known;
    const issue = whole.error.issues[0]!;
    throw new OpenclawRlError("BAD_REQUEST", `task_meta.${issue.path.join(".")}: ${issue.message}, and task_path names no task of ${this.file}`, {
      path: "task_meta",
      hint: "send the task's whole task_meta, or the task_path of a shipped task",
    });
  }
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
