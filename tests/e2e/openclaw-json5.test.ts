// Our JSON5 reader (cli/json5.ts) against the json5 package stock OpenClaw reads openclaw.json with (installed by
// prepare.sh beside openclaw@2026.9.6): the same value, or both refuse, for every document of a varied corpus.
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson5 } from "../../cli/json5.ts";
import { seededRandom } from "../support/seeded-random.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const openclawJson5 = createRequire(path.join(ROOT, ".cache/openclaw-e2e/app/node_modules/openclaw/package.json"))("json5") as { parse(text: string): unknown };

const FIXED = [
  "// c\n{ a: 1, /* b */ 'b': [1, 2,], \"c\": { d: 'x\\\ny' }, }",
  "{ hex: 0xFF, neg: -0x10, dot: .5, trail: 5., plus: +3, inf: -Infinity, exp: 1e-3 }",
  "'\\x41\\u00e9\\b\\f\\n\\r\\t\\v\\0\\'\"'",
  "{ $a_b: 1, caf\\u00e9: 2, ünï: 3 }",
  "[null, true, false, [], {}]",
  "{ a: 1 } x",
  "[1,,2]",
  "{ 1a: 2 }",
  "01",
  "'\\1'",
  "{ a: 'line\nbreak' }",
  "/* open",
  "{ __proto__: { x: 1 } }",
];

/** Random documents from JSON5's pieces: keys quoted three ways, values of every kind, comments and commas. */
function randomDocument(random: () => number, depth = 0): string {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
  const blank = () => pick(["", " ", "\n  ", " // note\n", " /* x */ ", "\t"]);
  const scalar = () => pick(["1", "-2.5", ".5", "5.", "+7", "0x1f", "1e3", "Infinity", "-Infinity", "null", "true", "false", "'s'", '"d"', "'it\\'s'", "'a\\\nb'", "\"\\u0041\"", "'\\x7e'"]);
  if (depth > 2 || random() < 0.3) return scalar();
  if (random() < 0.5) {
    const items = Array.from({ length: Math.floor(random() * 4) }, () => `${blank()}${randomDocument(random, depth + 1)}${blank()}`);
    return `[${items.join(",")}${items.length > 0 && random() < 0.5 ? "," : ""}]`;
  }
  const keys = Array.from({ length: Math.floor(random() * 4) }, (_, index) => `${blank()}${pick([`k${index}`, `'k ${index}'`, `"k${index}"`, `$k${index}`])}${blank()}:${blank()}${randomDocument(random, depth + 1)}${blank()}`);
  return `{${keys.join(",")}${keys.length > 0 && random() < 0.5 ? "," : ""}}`;
}

function outcome(parse: (text: string) => unknown, text: string): { value: unknown } | { error: true } {
  try {
    return { value: parse(text) };
  } catch {
    return { error: true };
  }
}

describe("cli/json5.ts reads as OpenClaw's json5 package does", () => {
  it("the same value, or both refuse, on fixed and 2000 random documents", () => {
    const source = seededRandom(5);
    const random = () => source.next();
    const corpus = [...FIXED, ...Array.from({ length: 2000 }, () => randomDocument(random))];
    for (const text of corpus) expect(outcome(parseJson5, text), text).toEqual(outcome(openclawJson5.parse, text));
  });
});
