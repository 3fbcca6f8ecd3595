// The held-out sets: persona openers (JSONL of personaOpenerSchema) and general-agent tasks (the environment task
// format), read and checked once; held-out tasks that are also in episodes.tasks are refused by name.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { personaOpenerSchema, type PersonaOpener } from "../../contracts/evaluation.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { readTasks, type Task } from "../episodes/task-file.ts";

/** The personas openclaw-rl ships: the paper's student and teacher, and a few everyday users (docs/evaluation.md). */
export const SHIPPED_PERSONAS = path.resolve(import.meta.dirname, "..", "..", "configs", "evaluation", "personas.jsonl");

export async function readPersonaSet(file: string): Promise<PersonaOpener[]> {
  const text = await readFile(file, "utf8").catch((cause: unknown) => {
    throw new OpenclawRlError("RECIPE_INVALID", `cannot read the persona set ${file}`, { path: "evaluation.personas", cause, hint: "a JSONL file, one {id, persona, opener, rubric, turns} per line (docs/evaluation.md)" });
  });
  const problems: string[] = [];
  const openers = text.split("\n").flatMap((line, index) => (line.trim().length === 0 ? [] : parseOpener(line, index + 1, problems)));
  const ids = new Set<string>();
  for (const opener of openers) {
    if (ids.has(opener.id)) problems.push(`id ${opener.id} appears twice (results are paired by id)`);
    ids.add(opener.id);
  }
  if (problems.length > 0) throw new OpenclawRlError("RECIPE_INVALID", `${file}: ${problems.slice(0, 3).join("; ")}`, { path: "evaluation.personas" });
  if (openers.length === 0) throw new OpenclawRlError("RECIPE_INVALID", `${file} holds no opener`, { path: "evaluation.personas" });
  return openers;
}

/** One line's opener, or none with its problem added to `problems`. */
function parseOpener(line: string, lineNumber: number, problems: string[]): PersonaOpener[] {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    problems.push(`line ${lineNumber} is not JSON`);
    return [];
  }
  const parsed = personaOpenerSchema.safeParse(json);
  if (parsed.success) return [parsed.data];
  problems.push(`line ${lineNumber}: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(line)"} ${issue.message}`).join(", ")}`);
  return [];
}

/** Held-out tasks; any whose key is also a training task is refused, naming the keys. */
export async function readHeldOutTasks(file: string, trainingTasksFile: string | null): Promise<Task[]> {
  const tasks = await readTasks(file).catch((error: unknown) => {
    if (error instanceof OpenclawRlError) throw new OpenclawRlError(error.code, error.message, { path: "evaluation.tasks", hint: error.hint, cause: error });
    throw error;
  });
  if (trainingTasksFile === null) return tasks;
  const training = new Set((await readTasks(trainingTasksFile)).map((task) => task.key));
  const shared = tasks.filter((task) => training.has(task.key)).map((task) => task.key);
  if (shared.length > 0) {
    throw new OpenclawRlError("RECIPE_INVALID", `held-out tasks are also training tasks (episodes.tasks): ${shared.slice(0, 5).join(", ")}${shared.length > 5 ? ` and ${shared.length - 5} more` : ""}`, {
      path: "evaluation.tasks",
      hint: "a held-out task must never be trained on: remove these from one of the two files",
    });
  }
  return tasks;
}
