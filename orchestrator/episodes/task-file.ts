// The tasks of the general-agent track: a JSONL file, one task per line in either of the reference's forms
// ({"task_meta": {...}}, or {"task": {...}} as its terminal converter writes them), each task's key
// `task_name:task_path`, and an episode's request id `task_key:uid:group:sample` (the reference's, and the episode's id
// everywhere). Reads and checks; runs nothing.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";

export interface Task {
  key: string;
  meta: Record<string, unknown>;
}

const metaSchema = z.record(z.string(), z.unknown());
const lineSchema = z.union([z.object({ task_meta: metaSchema }).passthrough(), z.object({ task: metaSchema }).passthrough()]);

/** The tasks of `file`; a line that is not a task is an error naming the file, the line and what is wrong. */
export async function readTasks(file: string): Promise<Task[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    throw new OpenclawRlError("RECIPE_INVALID", `cannot read the task file ${file}`, { path: "episodes.tasks", cause, hint: "point episodes.tasks at a JSONL file of tasks" });
  }
  const tasks: Task[] = [];
  const problems: string[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim().length === 0) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      problems.push(`line ${index + 1} is not JSON`);
      return;
    }
    const parsed = lineSchema.safeParse(json);
    if (!parsed.success) return void problems.push(`line ${index + 1} has no task_meta (or task) object`);
    const meta: Record<string, unknown> = "task_meta" in parsed.data ? (parsed.data.task_meta as Record<string, unknown>) : (parsed.data.task as Record<string, unknown>);
    const { task_name: name, task_path: taskPath } = meta;
    if (typeof name !== "string" || name.length === 0 || typeof taskPath !== "string" || taskPath.length === 0) {
      return void problems.push(`line ${index + 1}: task_meta needs task_name and task_path (strings), which make the task key`);
    }
    tasks.push({ key: `${name}:${taskPath}`, meta });
  });
  if (problems.length > 0) {
    throw new OpenclawRlError("RECIPE_INVALID", `${file}: ${problems.slice(0, 3).join("; ")}${problems.length > 3 ? `; and ${problems.length - 3} more` : ""}`, {
      path: "episodes.tasks",
      hint: 'one {"task_meta": {"task_name": …, "task_path": …, …}} (or {"task": {…}}, the reference\'s converter\'s form) per line',
    });
  }
  if (tasks.length === 0) throw new OpenclawRlError("RECIPE_INVALID", `${file} holds no task`, { path: "episodes.tasks" });
  return tasks;
}

/** The task file episodes run: the recipe's episodes.tasks, else the one the built-in environment ships; null when neither. */
export function episodeTasksFile(episodes: { tasks?: string; environment?: string }): string | null {
  if (episodes.tasks) return path.resolve(episodes.tasks);
  return episodes.environment ? path.resolve(import.meta.dirname, "..", "..", "environments", episodes.environment, "tasks.jsonl") : null;
}

/** An episode's id: `task_key:uid:group:sample`, as the reference makes its request ids. */
export function episodeId(taskKey: string, uid: string, group: number, sample: number): string {
  return `${taskKey}:${uid}:${group}:${sample}`;
}
