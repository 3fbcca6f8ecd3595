// Loads a recipe: YAML file → `--set dotted.key=value` overrides (typed by the schema) → `--method` → zod.
// Every problem becomes an OpenclawRlError naming the YAML path; nothing here prints or exits.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseDocument } from "yaml";
import { z } from "zod";
import { OpenclawRlError, OpenclawRlErrorList } from "../contracts/errors.ts";
import { recipeSchema, type Recipe } from "../contracts/recipe.ts";
import { issueToError } from "./recipe-issue.ts";
import { keyFacts, schemaAt, unknownKeyHint, unwrap } from "./recipe-keys.ts";

export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const DEFAULT_RECIPE = path.join(PACKAGE_ROOT, "configs", "rehearsal.yaml");

export interface RecipeSource {
  recipe?: string;
  method?: string;
  set?: string[];
}

export interface LoadedRecipe {
  recipe: Recipe;
  file: string;
  /** One line per --set that changes nothing (the file or the default already has that value), for the command to print. */
  unchanged: string[];
}

export function loadRecipe(source: RecipeSource): LoadedRecipe {
  const file = path.resolve(source.recipe ?? DEFAULT_RECIPE);
  const raw = readRecipeYaml(file);
  const unchanged: string[] = [];
  for (const assignment of source.set ?? []) {
    const already = applySet(raw, assignment);
    if (already === "file") unchanged.push(`--set ${assignment} changes nothing: ${path.relative(process.cwd(), file) || file} already sets it`);
    if (already === "default") unchanged.push(`--set ${assignment} changes nothing: it is the default`);
  }
  if (source.method !== undefined) raw.method = source.method;
  return { recipe: parseRecipe(raw, file), file, unchanged };
}

export function parseRecipe(raw: unknown, file = "<recipe>"): Recipe {
  const result = recipeSchema.safeParse(raw, { reportInput: true });
  if (result.success) return result.data;
  throw new OpenclawRlErrorList(result.error.issues.map((issue) => issueToError(issue, file)));
}

function readRecipeYaml(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    throw new OpenclawRlError("RECIPE_NOT_FOUND", `recipe file not found: ${file}`, {
      path: file,
      cause,
      hint: "pass --recipe with a YAML file, e.g. configs/qwen3-4b-combine.yaml",
    });
  }
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) {
    throw new OpenclawRlErrorList(
      document.errors.map((error, index) => {
        const [line, column] = [error.linePos?.[0]?.line, error.linePos?.[0]?.col];
        const where = line === undefined ? file : `${file}:${line}:${column}`;
        const source = line === undefined ? "" : (text.split("\n")[line - 1]?.trimEnd() ?? "");
        const excerpt = source === "" ? "" : ` (${JSON.stringify(source)})`;
        const message = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
        const hint = index === 0 ? "fix the YAML at that line or the one before it: one key: value per line, a nested key indented under its parent, each key once (configs/rehearsal.yaml is an example); later errors often follow from the first" : undefined;
        return new OpenclawRlError("RECIPE_YAML", `malformed YAML: ${message}${excerpt}`, { path: where, hint });
      }),
    );
  }
  const value = document.toJS();
  if (value === null || value === undefined) {
    // (the schema's defaults alone are a GPU recipe: an empty file must not start one without a word)
    throw new OpenclawRlError("RECIPE_INVALID", "empty recipe file: no keys, only comments or blank lines", {
      path: file,
      hint: "write the keys you change into it (copy configs/rehearsal.yaml for the CPU stand-ins or configs/qwen3-4b-combine.yaml for GPUs), or leave out --recipe to use the rehearsal default",
    });
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new OpenclawRlError("RECIPE_INVALID", "a recipe must be a YAML mapping (key: value lines)", { path: file });
  }
  return value as Record<string, unknown>;
}

/**
 * `training.lr=2e-5` → raw.training.lr = 2e-5, typed by what the schema expects at that path. Says whether the value
 * was there already: "file" (raw had it), "default" (raw had no value and the schema's default is it), else null.
 */
export function applySet(raw: Record<string, unknown>, assignment: string): "file" | "default" | null {
  const equals = assignment.indexOf("=");
  if (equals <= 0) {
    throw new OpenclawRlError("RECIPE_INVALID", `--set expects dotted.key=value, got "${assignment}"`, { path: "--set" });
  }
  const key = assignment.slice(0, equals).trim();
  const text = assignment.slice(equals + 1);
  const keys = key.split(".");
  const schema = schemaAt(keys);
  if (!schema) {
    throw new OpenclawRlError("RECIPE_INVALID", `unknown recipe key "${key}"`, { path: key, hint: unknownKeyHint(keys) });
  }
  let target = raw;
  for (const part of keys.slice(0, -1)) {
    const next = target[part];
    if (next === undefined || next === null) target[part] = {};
    else if (typeof next !== "object" || Array.isArray(next)) {
      throw new OpenclawRlError("RECIPE_INVALID", `cannot set "${key}": "${part}" is not a mapping`, { path: key });
    }
    target = target[part] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1]!;
  const before = target[last];
  const value = coerce(text, schema);
  target[last] = value;
  const same = (other: unknown) => other !== undefined && JSON.stringify(other) === JSON.stringify(value);
  if (before !== undefined) return same(before) ? "file" : null;
  return same(keyFacts(schema).defaultValue) ? "default" : null;
}

function coerce(text: string, schema: z.ZodType): unknown {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodNumber) {
    const value = Number(text);
    return text.trim() === "" || Number.isNaN(value) ? text : value;
  }
  if (inner instanceof z.ZodBoolean) {
    if (/^(true|yes|on|1)$/i.test(text)) return true;
    if (/^(false|no|off|0)$/i.test(text)) return false;
    return text;
  }
  if (inner instanceof z.ZodArray || inner instanceof z.ZodObject || inner instanceof z.ZodRecord) {
    const document = parseDocument(text);
    return document.errors.length > 0 ? text : document.toJS();
  }
  return text;
}
