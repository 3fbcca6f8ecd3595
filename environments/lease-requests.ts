// The bodies the lease protocol's routes take, read as the reference's router and pool read them (each case, with
// its lines: tests/fixtures/terminal-rl/lease-protocol-answers.json): a body that is not a JSON object reads as {}, a
// missing field is the 400 they answer, in their words; zod holds each check.
import { z } from "zod";
import { decodeLeaseId } from "./lease-id.ts";

export type BodyCheck<T> = { ok: true; value: T } | { ok: false; error: string };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** request_utils.json_payload: the body's JSON object, or {} for anything else (not JSON, a list, a number). */
export function jsonPayload(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** Python's truth of a JSON value: null, false, 0, "", [] and {} are false (their `if not task_key`). */
const truthy = (value: unknown): boolean =>
  !(value === undefined || value === null || value === false || value === 0 || value === "" || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0));

/** Python's str() of a JSON scalar (their `str(task_key)`); a list or object as its JSON text, which they would not write. */
const pythonText = (value: unknown): string => (typeof value === "string" ? value : typeof value === "boolean" ? (value ? "True" : "False") : typeof value === "number" ? String(value) : JSON.stringify(value));

const required = (field: string) => z.unknown().refine(truthy, { error: `${field} is required` }).transform(pythonText);

export const allocateRequestSchema = z.object({
  task_key: required("task_key").describe("task_name:task_path of the task the lease is for."),
  request_id: z
    .unknown()
    .optional()
    .transform((value) => (truthy(value) ? pythonText(value) : undefined))
    .describe("Optional: the same (task_key, request_id) gets the same lease while it lives."),
});

export const resetRequestSchema = z.object({
  task_meta: z.record(z.string(), z.unknown(), { error: "task_meta dict is required" }).describe("The task's task_meta, as its task file line has it."),
  // the reference's pool reads anything that is not an object as none
  run_ctx: z.unknown().optional().transform((value) => (isObject(value) ? value : {})),
  task_timeouts: z.unknown().optional().transform((value) => (isObject(value) ? value : undefined)),
});

export const execToolRequestSchema = z.object({
  tool_call: z.object(
    {
      name: z.string({ error: "tool_call.name is required" }).min(1, { error: "tool_call.name is required" }),
      // null reads as {}; JSON text is refused, as the reference's pool refuses it
      arguments: z
        .record(z.string(), z.unknown(), { error: "tool_call.arguments must be a dict" })
        .nullish()
        .transform((value) => value ?? {}),
    },
    { error: "tool_call dict is required" },
  ),
});

/** The first failed check of `schema` on `payload`, in the reference's words, or the parsed body. */
export function checkBody<S extends z.ZodType>(schema: S, payload: Record<string, unknown>): BodyCheck<z.infer<S>> {
  const parsed = schema.safeParse(payload);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: parsed.error.issues[0]!.message };
}

/** The pool's lease named by `payload.lease_id`, checked as the reference's router then its pool check it. */
export function checkLeaseId(payload: Record<string, unknown>): BodyCheck<string> {
  if (!truthy(payload.lease_id)) return { ok: false, error: "lease_id is required" };
  const decoded = decodeLeaseId(pythonText(payload.lease_id));
  if (!decoded.ok) return decoded;
  // the router forwards what follows ":"; the pool refuses it when empty
  return decoded.poolLease === "" ? { ok: false, error: "lease_id is required" } : { ok: true, value: decoded.poolLease };
}
