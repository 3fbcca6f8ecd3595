// Python's str.strip / lstrip / rstrip (and jinja2's `trim` filter, which is str.strip) for @huggingface/jinja,
// whose versions ignore their argument and trim JavaScript's whitespace. Ignores every other string method.
//
// Python: no argument or None strips the characters for which str.isspace() is true; a string strips exactly the code
// points it contains; anything else is a TypeError. @huggingface/jinja 0.5.11 builds these three in StringValue's
// `builtins` map (src/runtime.ts) as `this.value.trim()` / `trimStart()` / `trimEnd()` and applies `trim` in
// Interpreter.applyFilter, so `content.strip('\n')` in Qwen3's template strips spaces too. `stripPython` and
// `stripArgument` are what those builtins would call upstream; lib/model/transformers-template.ts calls them from its
// own Interpreter until then.

export type StripSide = "both" | "start" | "end";

/** The code points Python's str.isspace() accepts: what strip() with no argument removes. */
const PYTHON_WHITESPACE = new Set<number>([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
  0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** `text.strip(characters)` (lstrip for "start", rstrip for "end") as Python computes it, code point by code point. */
export function stripPython(text: string, characters: string | null, side: StripSide): string {
  const set = characters === null ? PYTHON_WHITESPACE : codePoints(characters);
  if (set.size === 0 || text.length === 0) return text;
  let start = 0;
  let end = text.length;
  if (side !== "end") {
    while (start < end) {
      const point = text.codePointAt(start)!;
      if (!set.has(point)) break;
      start += point > 0xffff ? 2 : 1;
    }
  }
  if (side !== "start") {
    while (end > start) {
      const low = text.charCodeAt(end - 1);
      const pair = low >= 0xdc00 && low <= 0xdfff && end - 2 >= start && isHighSurrogate(text.charCodeAt(end - 2));
      const point = pair ? text.codePointAt(end - 2)! : low;
      if (!set.has(point)) break;
      end -= pair ? 2 : 1;
    }
  }
  return text.slice(start, end);
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function codePoints(text: string): Set<number> {
  const set = new Set<number>();
  for (const character of text) set.add(character.codePointAt(0)!);
  return set;
}

/** The runtime values the strip family receives, by the `type` tag every @huggingface/jinja value carries. */
interface RuntimeValueLike {
  type: string;
  value: unknown;
}

/** The argument of strip(chars) as Python takes it: none or a string; the TypeError texts are Python's. */
export function stripArgument(method: string, args: readonly RuntimeValueLike[]): string | null {
  if (args.some((argument) => argument.type === "KeywordArgumentsValue")) throw new TypeError(`str.${method}() takes no keyword arguments`);
  if (args.length > 1) throw new TypeError(`${method} expected at most 1 argument, got ${args.length}`);
  const [argument] = args;
  if (argument === undefined || argument.type === "NullValue") return null;
  if (argument.type === "StringValue") return argument.value as string;
  throw new TypeError(`${method} arg must be None or str`);
}
