// Python's html.unescape (CPython 3.11's, tests/fixtures/python-html-unescape.json), which the fork's Qwen3-Coder detector applies to
// parameter values: named references by the HTML standard's table (the longest known prefix when no `;` closes one),
// numeric ones with the standard's fixes. The tables are html-entities.json, generated from CPython's own.
import tables from "./html-entities.json" with { type: "json" };

const NAMED = new Map<string, string>(Object.entries(tables.named));
const INVALID_CHARREFS = new Map<number, string>(Object.entries(tables.invalidCharrefs).map(([code, text]) => [Number(code), text]));
const INVALID_CODEPOINTS = new Set<number>(tables.invalidCodepoints);

/** html._charref: a reference is `&` then a decimal, hex or name (up to 32 code points), `;` optional. */
const REFERENCE = /&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)/gu;

function numeric(reference: string): string {
  const hex = reference[1] === "x" || reference[1] === "X";
  const digits = reference.slice(hex ? 2 : 1).replace(/;$/, "");
  // (past 0x10FFFF the exact number does not matter: it becomes U+FFFD)
  const code = digits.length > 12 ? Number.POSITIVE_INFINITY : parseInt(digits, hex ? 16 : 10);
  const fixed = INVALID_CHARREFS.get(code);
  if (fixed !== undefined) return fixed;
  if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return "\uFFFD";
  if (INVALID_CODEPOINTS.has(code)) return "";
  return String.fromCodePoint(code);
}

function named(reference: string): string {
  const whole = NAMED.get(reference);
  if (whole !== undefined) return whole;
  const points = [...reference];
  for (let length = points.length - 1; length > 1; length--) {
    const prefix = points.slice(0, length).join("");
    const text = NAMED.get(prefix);
    if (text !== undefined) return text + points.slice(length).join("");
  }
  return `&${reference}`;
}

/** `html.unescape(text)`. */
export function htmlUnescape(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (_match, reference: string) => (reference[0] === "#" ? numeric(reference) : named(reference)));
}
