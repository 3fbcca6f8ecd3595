// Turns one zod issue of a recipe into a RECIPE_INVALID error in plain words: what the key allows, what it got, and
// a hint (did you mean, the allowed values, the key's description and default). Cross-field rules keep their own words.
import { z } from "zod";
import { OpenclawRlError } from "../contracts/errors.ts";
import { nearestKey } from "./key-suggestion.ts";
import { keyFacts, referenceHint, schemaAt, unknownKeyHint, unwrap } from "./recipe-keys.ts";

interface NumberBounds {
  type?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
}

export function issueToError(issue: z.core.$ZodIssue, file: string): OpenclawRlError {
  const keys = issue.path.map(String);
  const dotted = keys.join(".");
  if (issue.code === "unrecognized_keys") {
    const unknown = issue.keys.map((key) => (dotted ? `${dotted}.${key}` : key));
    return new OpenclawRlError("RECIPE_INVALID", `unknown key${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}`, {
      path: unknown[0] ?? file,
      hint: unknownKeyHint((unknown[0] ?? "").split(".")),
    });
  }
  const schema = keys.length > 0 ? schemaAt(keys) : null;
  if (issue.code === "invalid_value") {
    const allowed = issue.values.map((value) => JSON.stringify(value));
    const near = typeof issue.input === "string" ? nearestKey(issue.input, issue.values.map(String)) : null;
    const guess = near === null ? "" : `did you mean "${near}"? (--set ${dotted}=${near}); `;
    return new OpenclawRlError("RECIPE_INVALID", `must be one of ${allowed.join(", ")}, got ${describeValue(issue.input)}`, {
      path: dotted || file,
      hint: `${guess}${keyHint(dotted, schema, false) ?? referenceHint()}`,
    });
  }
  if (issue.code === "too_small" && issue.origin === "string" && Number(issue.minimum) === 1) {
    return new OpenclawRlError("RECIPE_INVALID", "must not be empty", { path: dotted || file, hint: keyHint(dotted, schema, true) });
  }
  if (issue.code === "invalid_type" || issue.code === "too_small" || issue.code === "too_big") {
    const allowed = allowedWords(schema, issue);
    return new OpenclawRlError("RECIPE_INVALID", `must be ${allowed}, got ${describeValue(issue.input)}`, {
      path: dotted || file,
      hint: keyHint(dotted, schema, true) ?? referenceHint(),
    });
  }
  return new OpenclawRlError("RECIPE_INVALID", issue.message, { path: dotted || file });
}

/** "<what the key is>; the default is X: --set key=X", from the schema's description and default. */
function keyHint(dotted: string, schema: z.ZodType | null, withDefault: boolean): string | undefined {
  if (!schema) return undefined;
  const { defaultValue, summary, description } = keyFacts(schema);
  const parts: string[] = [];
  // (an enum's description lists its values "a: …; b: …", cut short it would name only the first)
  const words = !withDefault && description && description.length <= 240 ? description : summary;
  if (words) parts.push(`${dotted} is: ${words}`);
  const plain = typeof defaultValue === "number" || typeof defaultValue === "boolean" || (typeof defaultValue === "string" && /^[\w@%+=:,./-]+$/.test(defaultValue));
  if (withDefault && plain) parts.push(`the default is ${String(defaultValue)} (--set ${dotted}=${String(defaultValue)})`);
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/** What a key accepts, in words: "a whole number above 0", "a number from 0 to 1", "true or false", … */
function allowedWords(schema: z.ZodType | null, issue: z.core.$ZodIssue): string {
  const inner = schema ? unwrap(schema) : null;
  if (inner instanceof z.ZodNumber || ((issue.code === "too_small" || issue.code === "too_big") && issue.origin === "number")) {
    const bounds = inner ? (z.toJSONSchema(inner, { unrepresentable: "any" }) as NumberBounds) : {};
    return numberWords(bounds.type === "integer", bounds);
  }
  if (inner instanceof z.ZodBoolean) return "true or false";
  if (inner instanceof z.ZodString) return "text";
  if (inner instanceof z.ZodArray) return "a list";
  if (inner instanceof z.ZodObject || inner instanceof z.ZodRecord) return "a mapping (key: value lines)";
  if (issue.code === "invalid_type") return `a ${issue.expected}`;
  return issue.message;
}

function numberWords(whole: boolean, bounds: NumberBounds): string {
  const noun = whole ? "a whole number" : "a number";
  const low = bounds.exclusiveMinimum ?? bounds.minimum;
  const high = bounds.maximum !== undefined && bounds.maximum < Number.MAX_SAFE_INTEGER ? bounds.maximum : undefined;
  if (low !== undefined && high !== undefined && bounds.exclusiveMinimum === undefined) return `${noun} from ${low} to ${high}`;
  if (low !== undefined && high !== undefined) return `${noun} above ${low} and at most ${high}`;
  if (bounds.exclusiveMinimum !== undefined) return `${noun} above ${low}`;
  if (low !== undefined) return `${noun} of ${low} or more`;
  if (high !== undefined) return `${noun} of at most ${high}`;
  return noun;
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return `the text ${JSON.stringify(value)}`;
  return String(value); // (numbers, Infinity and booleans as written)
}
