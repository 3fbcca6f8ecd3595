// Rewrites a client's config file in place: read (missing = empty), transform, keep the old file beside it
// (<file>.bak-<time>), write to a temporary file with the old file's mode (0600 for a new one) and rename over it.
// Ignores what the file holds (the callers' merges do); an unchanged file is left alone.
import { randomBytes } from "node:crypto";
import { copyFile, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { OpenclawRlError } from "../contracts/errors.ts";
import { Json5Error, parseJson5 } from "./json5.ts";

export interface ConfigRewrite {
  file: string;
  /** The text before (null: there was no file) and after. */
  before: string | null;
  after: string;
  /** Where the old file was kept; null when there was none or nothing changed. */
  backup: string | null;
  changed: boolean;
}

/** `transform` gets the file's text (null when it does not exist yet) and returns the new text; it may throw to write nothing. */
export async function rewriteConfigFile(file: string, transform: (text: string | null) => string, now = new Date()): Promise<ConfigRewrite> {
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
  if (next === text) return { file, before: text, after: next, backup: null, changed: false };
  await mkdir(path.dirname(file), { recursive: true });
  const backup = text === null ? null : backupPath(file, now);
  if (backup) await copyFile(file, backup);
  const temporary = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temporary, next, { mode });
  await rename(temporary, file);
  return { file, before: text, after: next, backup, changed: true };
}

/** <file>.bak-20261127-130102 (UTC), with -2, -3 … when one of that second exists. */
function backupPath(file: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
  let candidate = `${file}.bak-${stamp}`;
  for (let index = 2; existsSync(candidate); index++) candidate = `${file}.bak-${stamp}-${index}`;
  return candidate;
}

/**
 * A config file's object (empty text: {}), read as JSON or as JSON5 (OpenClaw's openclaw.json); anything else is a
 * typed error naming the file and where, and nothing is written.
 */
export function parseJsonConfig(file: string, text: string | null, hint: string, syntax: "json" | "json5" = "json"): Record<string, unknown> {
  if (text === null || text.trim() === "") return {};
  let value: unknown;
  try {
    value = syntax === "json5" ? parseJson5(text) : JSON.parse(text);
  } catch (error) {
    const what = syntax === "json5" ? "JSON5" : "JSON";
    const reason = error instanceof Json5Error || error instanceof SyntaxError ? error.message : String(error);
    throw new OpenclawRlError("BAD_REQUEST", `${file} is not valid ${what} (${reason}); nothing was written`, { path: file, hint });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new OpenclawRlError("BAD_REQUEST", `${file} does not hold a JSON object; nothing was written`, { path: file });
  }
  return value as Record<string, unknown>;
}
