// Parameter values written as text, converted the way SGLang's qwen3_coder and glm45 detectors convert them: by the
// parameter's schema type upstream (tests/fixtures/sglang/parser-formats.md §5 and §6), without it under the fork.
import { decodePythonJson, dumpPythonJson, pythonFloat, pythonFloatText, PythonFloat, type PythonJson } from "../../python-json.ts";
import { stripPython } from "../../python-strip.ts";
import { htmlUnescape } from "./html-unescape.ts";
import { literalEval } from "./python-literal.ts";
import { schemaType } from "./schema-types.ts";

/** Python's int(text): surrounding whitespace, a sign, underscores between digits; null when it refuses. */
function pythonInt(text: string): number | bigint | null {
  const trimmed = text.trim();
  if (!/^[+-]?\d+(?:_\d+)*$/.test(trimmed)) return null;
  const digits = trimmed.replaceAll("_", "");
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : BigInt(digits);
}

/** Python's float(text) for finite numbers; null when it refuses (or for inf/nan, which JSON cannot carry). */
function pythonFloatValue(text: string): number | null {
  const trimmed = text.trim();
  if (!/^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/.test(trimmed)) return null;
  const value = Number(trimmed.replaceAll("_", ""));
  return Number.isFinite(value) ? value : null;
}

function parsed(text: string, ...readers: Array<(text: string) => PythonJson>): PythonJson | undefined {
  for (const read of readers) {
    try {
      return read(text);
    } catch {
      // the next reader
    }
  }
  return undefined;
}

/** qwen3_coder (upstream's _convert_param_value): `known` = the tool and the key are in the request's schema. */
export function coderValue(value: string, schema: unknown, known: boolean): PythonJson {
  if (value.toLowerCase() === "null") return null;
  if (!known) return value;
  const type = (schemaType(schema) ?? "string").toLowerCase();
  if (["string", "str", "text", "varchar", "char", "enum"].includes(type)) return value;
  if (/^(int|uint|long|short|unsigned)/.test(type)) return pythonInt(value) ?? value;
  if (/^(num|float)/.test(type)) {
    const number = pythonFloatValue(value);
    if (number === null) return value;
    return !/[.eE]/.test(value) && Number.isInteger(number) ? number : pythonFloat(number);
  }
  if (["boolean", "bool", "binary"].includes(type)) return value.toLowerCase() === "true";
  if (/^(object|array|arr|dict|list)/.test(type)) return parsed(value, decodePythonJson, literalEval) ?? value;
  return parsed(value, literalEval) ?? value;
}

/**
 * The fork's qwen3_coder value (_safe_val), whatever the schema says: html.unescape(raw.strip()), then json.loads, then
 * ast.literal_eval, else the text (json.loads read as orjson reads JSON: they differ only on NaN, big ints, surrogates).
 */
export function safeValue(raw: string): PythonJson {
  const text = htmlUnescape(stripPython(raw, null, "both"));
  const value = parsed(text, decodePythonJson, literalEval);
  return value === undefined ? text : value; // (null is a value: json.loads("null") is None)
}

/** Python's str() of a value (True, None, 1000.0, …). */
function pythonStr(value: PythonJson): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : pythonFloatText(value);
  if (value instanceof PythonFloat) return pythonFloatText(value.value);
  return dumpPythonJson(value);
}

/** glm45 (upstream's parse_arguments, then the string coercion): `type` from the schema, null when the tool or key is unknown. */
export function glmValue(value: string, type: string | null): PythonJson {
  let result: PythonJson | undefined = parsed(value, decodePythonJson);
  if (result !== undefined && type === "number" && typeof result === "string") {
    const number = pythonFloatValue(result);
    if (number !== null) result = /[.eE]/.test(result) ? pythonFloat(number) : number;
  }
  if (result === undefined) {
    const wrapped = parsed(`{"tmp": "${value}"}`, decodePythonJson);
    const inner = wrapped instanceof Map ? wrapped.get("tmp") : undefined;
    if (typeof inner === "string") result = parsed(inner, decodePythonJson);
  }
  if (result === undefined && type === "string") {
    const quoted = /^(["'])([\s\S]*)\1$/.exec(value);
    result = quoted ? quoted[2]! : value;
  }
  if (result === undefined) result = parsed(value, literalEval) ?? value;
  if (type !== "string") return result;
  if (typeof result === "string") return result;
  return Array.isArray(result) || result instanceof Map ? dumpPythonJson(result) : pythonStr(result);
}
