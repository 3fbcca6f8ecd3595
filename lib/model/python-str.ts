// Python's str() and repr() of template values, for @huggingface/jinja, which prints JavaScript's forms: jinja2 prints
// str(value) for every `{{ … }}`, and its `string` filter and `~` operator call str() too, so `{{ true }}` is "True",
// `{{ none }}` "None", `{{ [1, 'a'] }}` "[1, 'a']" and `{'a': 1} | string` "{'a': 1}", where the library writes true,
// nothing, [1, "a"] and {"a": 1}. lib/model/transformers-template.ts calls these from its Interpreter. Pure.
import { pythonFloatText } from "./python-json.ts";

/** A runtime value as these functions read it: the `type` tag every @huggingface/jinja value carries, and its value. */
export interface TemplateValue {
  type: string;
  value: unknown;
  /** An int beyond 2^53 keeps its exact digits here (transformers-template.ts's ExactInteger). */
  digits?: bigint;
}

/** str(value) as Python computes it; jinja2's Undefined prints as "". */
export function pythonStr(value: TemplateValue): string {
  if (value.type === "StringValue") return value.value as string;
  if (value.type === "UndefinedValue") return "";
  return pythonRepr(value);
}

/** repr(value): what str() of a container writes for each of its items. */
export function pythonRepr(value: TemplateValue): string {
  switch (value.type) {
    case "StringValue":
      return stringRepr(value.value as string);
    case "NullValue":
    case "UndefinedValue":
      return "None";
    case "BooleanValue":
      return value.value ? "True" : "False";
    case "IntegerValue":
      return value.digits !== undefined ? value.digits.toString() : String(value.value);
    case "FloatValue":
      return floatRepr(value.value as number);
    case "ArrayValue":
      return `[${(value.value as TemplateValue[]).map(pythonRepr).join(", ")}]`;
    case "TupleValue": {
      const items = (value.value as TemplateValue[]).map(pythonRepr);
      return items.length === 1 ? `(${items[0]},)` : `(${items.join(", ")})`;
    }
    case "ObjectValue":
    case "KeywordArgumentsValue":
      return `{${[...(value.value as Map<string, TemplateValue>)].map(([key, entry]) => `${stringRepr(key)}: ${pythonRepr(entry)}`).join(", ")}}`;
    default:
      return String(value.value);
  }
}

/** float.__repr__, with Python's names for the values JSON has none for. */
function floatRepr(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (value === Infinity) return "inf";
  if (value === -Infinity) return "-inf";
  return pythonFloatText(value);
}

/**
 * repr(str): single quotes unless the text holds a single quote and no double quote; backslash, the quote, \t \n \r
 * escaped; other code points Python does not count printable as \xNN, \uNNNN or \UNNNNNNNN.
 */
export function stringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const character of text) {
    const point = character.codePointAt(0)!;
    if (character === "\\") out += "\\\\";
    else if (character === quote) out += `\\${quote}`;
    else if (character === "\t") out += "\\t";
    else if (character === "\n") out += "\\n";
    else if (character === "\r") out += "\\r";
    else if (isPrintable(point)) out += character;
    else if (point < 0x100) out += `\\x${point.toString(16).padStart(2, "0")}`;
    else if (point < 0x10000) out += `\\u${point.toString(16).padStart(4, "0")}`;
    else out += `\\U${point.toString(16).padStart(8, "0")}`;
  }
  return out + quote;
}

/**
 * str.isprintable() for one code point, as far as text in chat requests goes: not a control, format, surrogate,
 * private-use or unassigned character, nor a separator other than the space (Unicode categories C* and Z* but Zs U+0020).
 */
function isPrintable(point: number): boolean {
  if (point === 0x20) return true;
  const character = String.fromCodePoint(point);
  return !/[\p{C}\p{Z}]/u.test(character);
}
