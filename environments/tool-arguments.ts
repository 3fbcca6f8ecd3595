// A tool's arguments as a model wrote them (an object, or JSON text of one) checked against the tool's zod schema:
// the parsed value, or the text of an `error: …` observation that says which argument was wrong.
import type { z } from "zod";

export type ToolArguments<T> = { ok: true; value: T } | { ok: false; observation: string };

export function parseToolArguments<S extends z.ZodType>(tool: string, schema: S, raw: unknown): ToolArguments<z.infer<S>> {
  let value: unknown = raw ?? {};
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw.trim() === "" ? "{}" : raw);
    } catch {
      return { ok: false, observation: `error: the arguments of ${tool} are not JSON: ${raw.slice(0, 200)}` };
    }
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, observation: `error: ${tool}: ${issue.path.length > 0 ? `argument ${issue.path.join(".")}: ` : ""}${issue.message}` };
}
