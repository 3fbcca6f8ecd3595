// What a config --write changed, one line per key path (old → new), and which keys of the old file it kept, from each
// file's keys flattened to text: JSON objects by dotted path (arrays whole), .env files by variable, TOML by
// [table].key; a key's value is hidden where its name says it is a secret. Ignores formatting.
import { NO_KEY_PLACEHOLDER } from "./commands/agent-key.ts";

/** Leaves of a JSON value by dotted path; arrays and empty objects are leaves, printed as compact JSON. */
export function flattenJson(value: unknown, prefix = "", into: Record<string, string> = {}): Record<string, string> {
  if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value)) flattenJson(child, prefix ? `${prefix}.${key}` : key, into);
  } else if (prefix) into[prefix] = JSON.stringify(value);
  return into;
}

/** KEY=VALUE lines (`export` allowed) by variable. */
export function flattenDotenv(text: string | null): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const line of (text ?? "").split("\n")) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/.exec(line);
    if (match) keys[match[1]!] = match[2]!.trim();
  }
  return keys;
}

/** `key = value` lines of a TOML file by `table.key` (top-level keys bare); comments and blank lines ignored. */
export function flattenToml(text: string | null): Record<string, string> {
  const keys: Record<string, string> = {};
  let table = "";
  for (const line of (text ?? "").split("\n")) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) table = header[1]!.trim();
    const match = /^\s*([A-Za-z0-9_.-]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match && !header) keys[table ? `${table}.${match[1]}` : match[1]!] = match[2]!;
  }
  return keys;
}

/** `path: old → new` for each key added, changed or removed, in the new file's order (removed ones last). */
export function describeChanges(before: Record<string, string>, after: Record<string, string>): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(after)) {
    if (before[key] !== value) lines.push(`${key}: ${before[key] === undefined ? "(none)" : shown(key, before[key])} → ${shown(key, value)}`);
  }
  for (const [key, value] of Object.entries(before)) if (!(key in after)) lines.push(`${key}: ${shown(key, value)} → (removed)`);
  return lines;
}

/** The old file's keys the write left as they were, by path, in its order. */
export function keptKeys(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys(before).filter((key) => after[key] === before[key]);
}

/** apiKey, OPENAI_API_KEY, ANTHROPIC_AUTH_TOKEN, experimental_bearer_token…: not env_key, which names a variable. */
const SECRET_NAME = /(api_?key|auth_?token|bearer_?token|secret|password)$/i;

function shown(key: string, text: string): string {
  const name = key.split(".").at(-1)!;
  const value = text.replace(/^"(.*)"$/, "$1");
  // (a ${VAR} placeholder or our no-key placeholder is no secret)
  if (SECRET_NAME.test(name) && value !== "" && !value.includes("${") && value !== NO_KEY_PLACEHOLDER) return `(hidden, ${value.length} characters)`;
  return text.length > 100 ? `${text.slice(0, 97)}…` : text;
}

/** What `--write` did to the file, for the terminal: where, the backup, then each key's change. */
export function formatRewrite(rewrite: { file: string; before: string | null; after: string; backup: string | null; changed: boolean }, keysOf: (text: string | null) => Record<string, string>, note?: string): string {
  if (!rewrite.changed) return `${rewrite.file} already holds these settings; nothing was written\n`;
  const head = rewrite.before === null ? `created ${rewrite.file}` : `wrote ${rewrite.file} (the previous file is kept as ${rewrite.backup})`;
  const [before, after] = [keysOf(rewrite.before), keysOf(rewrite.after)];
  const kept = keptKeys(before, after);
  const keptLine = kept.length === 0 ? [] : [`  kept from the old file: ${kept.length > 12 ? `${kept.slice(0, 12).join(", ")} and ${kept.length - 12} more` : kept.join(", ")}`];
  return `${[head + (note ? `; ${note}` : ""), ...describeChanges(before, after).map((line) => `  ${line}`), ...keptLine].join("\n")}\n`;
}
