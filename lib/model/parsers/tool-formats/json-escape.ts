// One backslash escape of a JSON string as Python's json decodes it, read from text that may stop anywhere: the
// character(s) it stands for and its length, "wait" while it is incomplete, null when it is invalid. A high surrogate
// escape must be followed by an escaped low half, which Python combines with it; a lone half is invalid (as orjson has it).

const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

export function jsonEscapeAt(text: string, at: number): { text: string; length: number } | "wait" | null {
  const available = text.slice(at, at + 12);
  if (available.length < 2) return "wait";
  const kind = available[1]!;
  if (kind !== "u") return kind in ESCAPES ? { text: ESCAPES[kind]!, length: 2 } : null;
  if (!/^\\u[0-9a-fA-F]{0,4}$/.test(available.slice(0, 6))) return null;
  if (available.length < 6) return "wait";
  const unit = Number.parseInt(available.slice(2, 6), 16);
  if (unit >= 0xdc00 && unit <= 0xdfff) return null;
  if (unit < 0xd800 || unit > 0xdbff) return { text: String.fromCharCode(unit), length: 6 };
  const rest = available.slice(6);
  if (!"\\u".startsWith(rest.slice(0, 2)) || !/^[0-9a-fA-F]*$/.test(rest.slice(2))) return null;
  if (rest.length < 6) return "wait";
  const low = Number.parseInt(rest.slice(2), 16);
  if (!(low >= 0xdc00 && low <= 0xdfff)) return null;
  return { text: String.fromCharCode(unit, low), length: 12 };
}
