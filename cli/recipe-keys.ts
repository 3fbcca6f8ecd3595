// Looking a dotted recipe key up in the zod schema: its schema, default and description, and "did you mean" for a
// misspelt key. Only lookups; loading (cli/recipe-file.ts) and issue wording (cli/recipe-issue.ts) live elsewhere.
import { z } from "zod";
import { recipeObjectSchema } from "../contracts/recipe.ts";
import { cliCommand } from "../lib/cli-command.ts";
import { nearestKey } from "./key-suggestion.ts";

/** The schema at a dotted path: a fixed key of an object, or any key its key schema accepts of a free-form mapping (z.record). */
export function schemaAt(keys: readonly string[]): z.ZodType | null {
  let schema: z.ZodType = recipeObjectSchema;
  for (const key of keys) {
    const container = unwrap(schema);
    let child: z.ZodType | undefined;
    if (container instanceof z.ZodObject) child = (container.shape as Record<string, z.ZodType>)[key];
    else if (container instanceof z.ZodRecord && (container.keyType as z.ZodType).safeParse(key).success) child = container.valueType as z.ZodType;
    if (!child) return null;
    schema = child;
  }
  return schema;
}

/** The schema under its default / optional / pipe wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (let depth = 0; depth < 10; depth++) {
    const def = (current as unknown as { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } }).def;
    if (def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else break;
  }
  return current;
}

/** The key's default (undefined when it has none), its description and that description's first sentence, without asides in brackets. */
export function keyFacts(schema: z.ZodType): { defaultValue: unknown; summary: string | undefined; description: string | undefined } {
  let current: z.ZodType = schema;
  let defaultValue: unknown;
  let description: string | undefined;
  for (let depth = 0; depth < 10; depth++) {
    description ??= current.description;
    const def = (current as unknown as { def: { type: string; innerType?: z.ZodType; defaultValue?: unknown } }).def;
    if (def.type === "default" && defaultValue === undefined) defaultValue = def.defaultValue;
    if (!def.innerType) break;
    current = def.innerType;
  }
  const summary = description
    ?.replace(/\s*\([^()]*\)/g, "")
    .split(/(?<=[.;])\s/)[0]
    ?.replace(/[.;]$/, "");
  return { defaultValue, summary: summary === "" ? undefined : summary, description: description?.replace(/\s*\([^()]*\)/g, "").replace(/\.$/, "") };
}

/** Where every key is listed, for hints. */
export function referenceHint(): string {
  return `every key: ${cliCommand("recipe-reference")} (docs/recipe-reference.md)`;
}

/** "did you mean …" (each misspelt part of `keys` replaced by the nearest key the schema has there), and where every key is listed. */
export function unknownKeyHint(keys: readonly string[]): string {
  const reference = referenceHint();
  const corrected: string[] = [];
  for (const key of keys) {
    const container = corrected.length === 0 ? recipeObjectSchema : schemaAt(corrected);
    const inner = container ? unwrap(container) : null;
    if (inner instanceof z.ZodRecord) {
      const last = corrected.length === keys.length - 1; // (a free-form mapping's entries hold plain values)
      if (!last || !(inner.keyType as z.ZodType).safeParse(key).success) return reference;
      corrected.push(key);
      continue;
    }
    const shape = inner instanceof z.ZodObject ? Object.keys(inner.shape as Record<string, z.ZodType>) : [];
    const near = shape.includes(key) ? key : nearestKey(key, shape);
    if (near === null) return reference;
    corrected.push(near);
  }
  return `did you mean "${corrected.join(".")}"? ${reference}`;
}
