// A tool parameter's type from its JSON schema, as SGLang's infer_type_from_json_schema reads it
// (tests/fixtures/sglang/parser-formats.md §5), and the tool's parameter schemas by name. For the formats that write
// parameter values as text (qwen3_coder, glm45) and convert them by type.
import type { Tool } from "../../../../contracts/chat.ts";

type Schema = Record<string, unknown>;

/** The schema's type name (lower-case as written), or null when nothing in it says. */
export function schemaType(schema: unknown): string | null {
  if (!schema || typeof schema !== "object") return null;
  const spec = schema as Schema;
  if (typeof spec.type === "string") return spec.type;
  if (Array.isArray(spec.type)) return (spec.type.find((entry) => entry !== "null") as string | undefined) ?? "null";
  for (const key of ["anyOf", "oneOf"]) {
    const options = spec[key];
    if (!Array.isArray(options) || options.length === 0) continue;
    const types = options.map(schemaType).filter((type): type is string => type !== null);
    if (types.length === 0) continue;
    if (types.every((type) => type === types[0])) return types[0]!;
    const nonNull = types.filter((type) => type !== "null");
    if (nonNull.length === 1) return nonNull[0]!;
    return types.includes("string") ? "string" : types[0]!;
  }
  if (Array.isArray(spec.enum) && spec.enum.length > 0) {
    const types = [...new Set(spec.enum.map(valueType))];
    return types.length === 1 ? types[0]! : "string";
  }
  if (Array.isArray(spec.allOf)) {
    const nonString = spec.allOf.map(schemaType).find((type) => type !== null && type !== "string");
    if (nonString) return nonString;
  }
  if (spec.properties) return "object";
  if (spec.items) return "array";
  return null;
}

function valueType(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string") return "string";
  return Array.isArray(value) ? "array" : "object";
}

/** The `properties` of the named tool's parameters, or null when the request has no such tool. */
export function toolProperties(tools: readonly Tool[], name: string): Record<string, unknown> | null {
  const tool = tools.find((entry) => entry.function.name === name);
  if (!tool) return null;
  const properties = (tool.function.parameters as { properties?: unknown } | undefined)?.properties;
  return properties && typeof properties === "object" ? (properties as Record<string, unknown>) : {};
}
