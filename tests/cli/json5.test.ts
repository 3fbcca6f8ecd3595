// The JSON5 reader against the features json5.org documents (OpenClaw reads openclaw.json as JSON5): the spec's own
// example, each feature alone, and errors that say where. Plain JSON reads as JSON.parse reads it.
import { describe, expect, it } from "vitest";
import { Json5Error, parseJson5 } from "../../cli/json5.ts";

describe("parseJson5", () => {
  it("reads json5.org's example", () => {
    const text = `// This file is written in JSON5 syntax, naturally, but npm needs a regular
// JSON file, so compile via \`npm run build\`. Be sure to keep both in sync!

{
  // comments
  unquoted: 'and you can quote me on that',
  singleQuotes: 'I can use "double quotes" here',
  lineBreaks: "Look, Mom! \\
No \\\\n's!",
  hexadecimal: 0xdecaf,
  leadingDecimalPoint: .8675309, andTrailing: 8675309.,
  positiveSign: +1,
  trailingComma: 'in objects', andIn: ['arrays',],
  "backwardsCompatible": "with JSON",
}`;
    expect(parseJson5(text)).toEqual({
      unquoted: "and you can quote me on that",
      singleQuotes: 'I can use "double quotes" here',
      lineBreaks: "Look, Mom! No \\n's!",
      hexadecimal: 0xdecaf,
      leadingDecimalPoint: 0.8675309,
      andTrailing: 8675309,
      positiveSign: 1,
      trailingComma: "in objects",
      andIn: ["arrays"],
      backwardsCompatible: "with JSON",
    });
  });

  it("reads each feature: block comments, Infinity / NaN, escapes, identifiers with $ _ and \\u, exponent forms", () => {
    expect(parseJson5("/* a */ { /* b */ a /* c */ : /* d */ 1 /* e */ } /* f */")).toEqual({ a: 1 });
    expect(parseJson5("[Infinity, -Infinity, +Infinity]")).toEqual([Infinity, -Infinity, Infinity]);
    expect(Number.isNaN(parseJson5("NaN"))).toBe(true);
    expect(parseJson5("-0x1F")).toBe(-31);
    expect(parseJson5("[1e3, 2E-2, .5e1, 5.e1]")).toEqual([1000, 0.02, 5, 50]);
    expect(parseJson5("'\\x41\\u0042\\t\\'\\\"\\0'")).toBe("AB\t'\"\0");
    expect(parseJson5("{ $dollar: 1, _under: 2, caf\\u00e9: 3, ünï: 4 }")).toEqual({ $dollar: 1, _under: 2, "café": 3, "ünï": 4 });
    expect(parseJson5("{ 'single key': null, \"double\": true, t: false }")).toEqual({ "single key": null, double: true, t: false });
    expect(parseJson5("{ __proto__: 1 }")).toHaveProperty("__proto__", 1);
    expect(Object.getPrototypeOf(parseJson5("{ __proto__: { polluted: true } }"))).toBe(Object.prototype);
  });

  it("reads plain JSON as JSON.parse does", () => {
    const text = JSON.stringify({ models: { providers: { rl: { baseUrl: "http://127.0.0.1:30000/v1", models: [{ id: "q", cost: { input: 0 } }] } } }, list: [1.5, -2, "x\ny", null, true] }, null, 2);
    expect(parseJson5(text)).toEqual(JSON.parse(text));
  });

  it("refuses what JSON5 does not allow, saying the line and column", () => {
    const cases: [string, RegExp][] = [
      ["{ a: 1 } x", /unexpected "x" after the value at line 1, column 10/],
      ["{\n  a: 1,\n  b 2\n}", /expected ":" after the key "b" at line 3, column 5/],
      ["[1,,2]", /unexpected "," at line 1, column 4/],
      ["'open", /unterminated string/],
      ["'a\nb'", /line break inside a string must be escaped/],
      ["{ a: 1 /* open", /unterminated \/\* comment/],
      ["{ 1a: 2 }", /expected a key/],
      ["01", /unexpected "1" after the value/],
      ["'\\1'", /digit escapes are not allowed/],
      ["", /unexpected end of input/],
      ["undefined", /unexpected "u"/],
    ];
    for (const [text, message] of cases) {
      expect(() => parseJson5(text), text).toThrow(Json5Error);
      expect(() => parseJson5(text), text).toThrow(message);
    }
  });
});
