// Rewrites a client's config file in place: read (missing = empty), transform, write to a temporary file with the
// old file's mode (0600 for a new one) and rename over it. Ignores what the file holds (the callers' merges do).
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { OpenclawRlError } from "../contracts/errors.ts";

/** `transform` gets the file's text (null when it does not exist yet) and returns the new text; it may throw to write nothing. */
export async function rewriteConfigFile(file: string, transform: (text: string | null) => string): Promise<void> {
  let mode = 0o600;
  let text: string | null = null;
  try {
    text = await readFile(file, "utf8");
    mode = (await stat(file)).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new OpenclawRlError("BAD_REQUEST", `cannot read ${file}: ${(error as Error).message}`, { path: file });
    }
  }
  const next = transform(text);
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temporary, next, { mode });
  await rename(temporary, file);
}

/** A JSON config file's object (empty text: {}); anything else is a typed error naming the file, and nothing is written. */
export function parseJsonConfig(file: string, text: string | null, hint: string): Record<string, unknown> {
  if (text === null || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new OpenclawRlError("BAD_REQUEST", `${file} is not valid JSON (${(error as Error).message}); nothing was written`, { path: file, hint });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new OpenclawRlError("BAD_REQUEST", `${file} does not hold a JSON object; nothing was written`, { path: file });
  }
  return value as Record<string, unknown>;
}
