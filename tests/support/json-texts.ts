// Seeded random JSON texts written the ways clients write them (JavaScript's JSON.stringify, Python's json.dumps, by
// hand): number spellings Python and JavaScript read differently, escapes, integer-like and repeated keys, spacing.
// For the Python-JSON and rendering parity tests; ignores invalid JSON (the tests list those cases themselves).
import type { SeededRandom } from "./seeded-random.ts";

/** Spellings where a Python value differs from JavaScript's reading of it: floats that are integral, ints past 2^53. */
export const NUMBER_SPELLINGS = [
  "0", "-0", "7", "-12", "30", "1.0", "-0.0", "30.0", "2.50", "1e5", "1E+5", "2.5e-3", "1e-05", "0.0001", "0.00001",
  "1e-7", "123456789012345678.0", "1e16", "1e22", "1.7976931348623157e308", "5e-324", "9007199254740993",
  "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
  "100000000000000000000000000000", "3.141592653589793", "0.1", "1.5e300", "-2.5E-10",
];
const STRINGS = [
  "", "a", "path/to/file.ts", "日本語", "🙂", "e\u0301", "\t tab", "line\nbreak", 'quote " and \\ backslash', "\u0000\u001f\u007f",
  "\u2028\u2029", "\uffff", "<>&'", "1", "10", "-1", "01",
];
/** Escapes a writer may use for a character; what they decode to is the same either way. */
const ESCAPED = ["\\u00e9", "\\ud83d\\ude42", "\\/", "\\b\\f\\n\\r\\t", '\\"', "\\\\", "\\u65e5\\u672c", "\\u0000"];
/** Keys that JavaScript objects move to the front (integer-like) next to ordinary ones. */
const KEYS = ["path", "b", "a", "1", "0", "10", "2", "-1", "01", "content", "日本", "🙂", "", "__proto__", "constructor"];

/** A double spelled so that Python reads a float: any of 2^64 bit patterns that is finite, in exponent form. */
export function randomDoubleText(random: SeededRandom): string {
  const view = new DataView(new ArrayBuffer(8));
  for (;;) {
    view.setUint32(0, Math.floor(random.next() * 2 ** 32));
    view.setUint32(4, Math.floor(random.next() * 2 ** 32));
    const value = view.getFloat64(0);
    if (Number.isFinite(value)) return value.toExponential();
  }
}

function numberText(random: SeededRandom): string {
  if (random.chance(0.3)) return randomDoubleText(random);
  if (random.chance(0.2)) return String(random.below(2_000_001) - 1_000_000);
  return random.pick(NUMBER_SPELLINGS);
}

function stringText(random: SeededRandom): string {
  let text = JSON.stringify(random.pick(STRINGS)).slice(1, -1);
  if (random.chance(0.4)) text += random.pick(ESCAPED);
  return `"${text}"`;
}

/** A JSON text of a value nested at most `depth` deep, spaced compactly, as Python spaces it, or loosely. */
export function randomJsonText(random: SeededRandom, depth = 3): string {
  const space = random.pick(["", " ", "\n  ", "\t"]);
  const kind = depth <= 0 ? random.below(4) : random.below(6);
  if (kind === 0) return numberText(random);
  if (kind === 1) return stringText(random);
  if (kind === 2) return random.pick(["true", "false", "null"]);
  if (kind === 3) return random.chance(0.5) ? numberText(random) : stringText(random);
  if (kind === 4) {
    const items = Array.from({ length: random.below(4) }, () => randomJsonText(random, depth - 1));
    return `[${space}${items.join(`,${space}`)}${space}]`;
  }
  return randomJsonObjectText(random, depth - 1, space);
}

/** A JSON object text (what SGLang accepts as tool-call arguments), keys possibly integer-like or repeated. */
export function randomJsonObjectText(random: SeededRandom, depth = 2, space = random.pick(["", " ", "\n  "])): string {
  const entries = Array.from({ length: random.below(5) }, () => `${JSON.stringify(random.pick(KEYS))}${random.pick([":", ": ", " : "])}${randomJsonText(random, depth)}`);
  return `{${space}${entries.join(`,${space}`)}${space}}`;
}
