// Python's view of JSON for chat templates: text decoded into Python-typed values as SGLang's orjson.loads decodes
// tool-call arguments, and json.dumps as transformers' tojson filter calls it. Ignores JSON that is not a template's.
//
// Why not JSON.parse/JSON.stringify: Python keeps what JavaScript loses or spells differently. `1.0` stays a float and
// prints as 1.0; integers up to 64 bits stay exact; object keys keep their order ("b" before "1"); floats print as
// repr() does (1e-05, 1e+16). Values, in JavaScript terms: null, boolean, string, number (an integer-valued number is
// a Python int, any other a float), bigint (an int beyond 2^53), PythonFloat (an integer-valued float), arrays, and
// Map (a dict in key order; plain objects are accepted as dicts too, in their own key order).

/** A Python float whose value is integral (1.0, -0.0, 1e+300): a bare number would be taken for an int. */
export class PythonFloat {
  constructor(readonly value: number) {}
}

export type PythonJson = null | boolean | string | number | bigint | PythonFloat | PythonJson[] | Map<string, PythonJson> | { [key: string]: PythonJson };

/** The float as a Python value: a bare number when that is unambiguous, else boxed. */
export function pythonFloat(value: number): number | PythonFloat {
  return Number.isInteger(value) || Object.is(value, -0) ? new PythonFloat(value) : value;
}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Decodes JSON text as orjson.loads does (orjson 3.8.3): strict JSON (no NaN/Infinity, no lone surrogates, no control
 * characters in strings); integers exact within [-2^63, 2^64-1] and floats beyond; a float too large for a double is
 * an error; a repeated key keeps its first position and its last value. Throws SyntaxError on anything else.
 */
export function decodePythonJson(text: string): PythonJson {
  const reader = new JsonReader(text);
  reader.skipSpace();
  const value = reader.value();
  reader.skipSpace();
  if (reader.at < text.length) reader.fail("extra data");
  return value;
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

class JsonReader {
  at = 0;
  constructor(private readonly text: string) {}

  fail(problem: string): never {
    throw new SyntaxError(`${problem} at character ${this.at} of the JSON text`);
  }

  skipSpace(): void {
    for (let code = this.text.charCodeAt(this.at); code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d; code = this.text.charCodeAt(++this.at));
  }

  value(): PythonJson {
    const character = this.text[this.at];
    if (character === "{") return this.object();
    if (character === "[") return this.array();
    if (character === '"') return this.string();
    for (const [word, value] of [["true", true], ["false", false], ["null", null]] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    return this.number();
  }

  private object(): Map<string, PythonJson> {
    const map = new Map<string, PythonJson>();
    this.at++;
    this.skipSpace();
    if (this.text[this.at] === "}") {
      this.at++;
      return map;
    }
    for (;;) {
      if (this.text[this.at] !== '"') this.fail("expected a string key");
      const key = this.string();
      this.skipSpace();
      if (this.text[this.at++] !== ":") this.fail("expected ':'");
      this.skipSpace();
      map.set(key, this.value());
      this.skipSpace();
      const next = this.text[this.at++];
      if (next === "}") return map;
      if (next !== ",") this.fail("expected ',' or '}'");
      this.skipSpace();
    }
  }

  private array(): PythonJson[] {
    const items: PythonJson[] = [];
    this.at++;
    this.skipSpace();
    if (this.text[this.at] === "]") {
      this.at++;
      return items;
    }
    for (;;) {
      items.push(this.value());
      this.skipSpace();
      const next = this.text[this.at++];
      if (next === "]") return items;
      if (next !== ",") this.fail("expected ',' or ']'");
      this.skipSpace();
    }
  }

  private string(): string {
    let out = "";
    let start = ++this.at;
    for (;;) {
      const code = this.text.charCodeAt(this.at);
      if (Number.isNaN(code)) this.fail("unterminated string");
      if (code === 0x22) break;
      if (code < 0x20) this.fail("control character in string");
      if (code >= 0xd800 && code <= 0xdfff) this.surrogate(code, this.text.charCodeAt(this.at + 1), 1);
      else if (code === 0x5c) {
        out += this.text.slice(start, this.at);
        const escape = this.text[this.at + 1] ?? "";
        if (escape === "u") {
          const unit = this.hex(this.at + 2);
          if (unit >= 0xd800 && unit <= 0xdfff) {
            const low = this.text.startsWith("\\u", this.at + 6) ? this.hex(this.at + 8) : -1;
            this.surrogate(unit, low, 6);
            out += String.fromCharCode(unit, low);
            this.at += 12;
          } else {
            out += String.fromCharCode(unit);
            this.at += 6;
          }
        } else {
          if (!(escape in ESCAPES)) this.fail("invalid escape");
          out += ESCAPES[escape];
          this.at += 2;
        }
        start = this.at;
        continue;
      }
      this.at++;
    }
    out += this.text.slice(start, this.at++);
    return out;
  }

  /** A surrogate must open a pair (orjson refuses lone halves, written raw or escaped); a raw pair is stepped over. */
  private surrogate(high: number, low: number, width: number): void {
    if (high > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) this.fail("lone surrogate in string");
    if (width === 1) this.at++;
  }

  private hex(from: number): number {
    const digits = this.text.slice(from, from + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) this.fail("invalid \\u escape");
    return Number.parseInt(digits, 16);
  }

  private number(): number | bigint | PythonFloat {
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (match === null) this.fail("expected a value");
    this.at += match[0].length;
    if (match[1] === undefined && match[2] === undefined) {
      const integer = BigInt(match[0]);
      if (integer >= INT64_MIN && integer <= UINT64_MAX) {
        return integer >= BigInt(Number.MIN_SAFE_INTEGER) && integer <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(integer) : integer;
      }
    }
    const value = Number(match[0]);
    if (!Number.isFinite(value)) this.fail("number is infinity when parsed as double");
    return pythonFloat(value);
  }
}

export interface DumpOptions {
  ensureAscii?: boolean;
  /** Python's indent: a count of spaces or the indent text itself; 0 or "" still puts items on their own lines. */
  indent?: number | string | null;
  /** [item separator, key separator]; by default ", " (or "," with an indent) and ": ". */
  separators?: readonly [string, string] | null;
  sortKeys?: boolean;
}

/** json.dumps(value, ensure_ascii=..., indent=..., separators=..., sort_keys=...) as Python writes it. */
export function dumpPythonJson(value: PythonJson, options: DumpOptions = {}): string {
  const indent = options.indent === null || options.indent === undefined ? null : typeof options.indent === "string" ? options.indent : " ".repeat(Math.max(0, options.indent));
  const [itemSeparator, keySeparator] = options.separators ?? [indent === null ? ", " : ",", ": "];
  const quote = options.ensureAscii ? quoteAscii : quoteUnicode;
  const write = (item: PythonJson, depth: number): string => {
    if (item === null) return "null";
    if (item === true) return "true";
    if (item === false) return "false";
    if (typeof item === "string") return quote(item);
    if (typeof item === "bigint") return item.toString();
    if (typeof item === "number") return Number.isInteger(item) ? String(item) : pythonFloatText(item);
    if (item instanceof PythonFloat) return pythonFloatText(item.value);
    let entries: Array<[string | null, PythonJson]>;
    let open = "[";
    let close = "]";
    if (Array.isArray(item)) entries = item.map((element) => [null, element]);
    else {
      entries = (item instanceof Map ? [...item.entries()] : Object.entries(item)).filter(([, element]) => element !== undefined);
      if (options.sortKeys) entries.sort(([left], [right]) => compareCodePoints(left!, right!));
      open = "{";
      close = "}";
    }
    if (entries.length === 0) return open + close;
    const inner = indent === null ? "" : "\n" + indent.repeat(depth + 1);
    const outer = indent === null ? "" : "\n" + indent.repeat(depth);
    const parts = entries.map(([key, element]) => (key === null ? "" : quote(key) + keySeparator) + write(element, depth + 1));
    return open + inner + parts.join(itemSeparator + inner) + outer + close;
  };
  return write(value, 0);
}

/** float.__repr__ (and json.dumps of a float): shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pythonFloatText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const sign = value < 0 ? "-" : "";
  const [mantissa, exponentText] = Math.abs(value).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const exponent = Number(exponentText);
  const point = exponent + 1; // digits before the decimal point
  if (point > -4 && point <= 16) {
    if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
    if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${head}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
}

/** Python's str ordering: by code point (JavaScript's < compares UTF-16 units, which differs above U+FFFF). */
function compareCodePoints(left: string, right: string): number {
  const a = [...left];
  const b = [...right];
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const difference = a[index]!.codePointAt(0)! - b[index]!.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

const NAMED: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** ensure_ascii=False: only quotes, backslashes and control characters are escaped (lone surrogates stay as they are). */
function quoteUnicode(text: string): string {
  return `"${escapePythonJsonText(text)}"`;
}

/** A string's characters as json.dumps(…, ensure_ascii=False) writes them between its quotes (for text streamed piece by piece). */
export function escapePythonJsonText(text: string): string {
  return text.replace(/[\x00-\x1f"\\]/g, escapeCharacter);
}

/** ensure_ascii=True: DEL and every non-ASCII UTF-16 unit as \uXXXX too (astral characters as their surrogate pair). */
function quoteAscii(text: string): string {
  return `"${text.replace(/[\x00-\x1f"\\\x7f-\uffff]/g, escapeCharacter)}"`;
}

function escapeCharacter(character: string): string {
  return NAMED[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
