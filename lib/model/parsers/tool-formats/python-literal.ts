// Python's ast.literal_eval for the values tool-call parsers fall back to: numbers, strings in either quote,
// True/False/None, lists, tuples (as lists) and dicts, as PythonJson. Throws SyntaxError on anything else.
import { pythonFloat, type PythonJson } from "../../python-json.ts";

export function literalEval(text: string): PythonJson {
  let at = 0;
  const fail = (why: string): never => {
    throw new SyntaxError(`not a Python literal: ${why} at ${at}`);
  };
  const space = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const value = (): PythonJson => {
    space();
    const char = text[at];
    if (char === "[" || char === "(") return sequence(char === "[" ? "]" : ")");
    if (char === "{") return dict();
    if (char === "'" || char === '"') return string();
    const word = /^(True|False|None)\b/.exec(text.slice(at));
    if (word) {
      at += word[0].length;
      return word[1] === "True" ? true : word[1] === "False" ? false : null;
    }
    const number = /^[+-]?(?:\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?|\.\d[\d_]*(?:[eE][+-]?\d+)?)/.exec(text.slice(at));
    if (!number) return fail("unexpected text");
    at += number[0].length;
    const digits = number[0].replaceAll("_", "");
    return /[.eE]/.test(digits) ? pythonFloat(Number(digits)) : Number.isSafeInteger(Number(digits)) ? Number(digits) : BigInt(digits);
  };
  const sequence = (close: string): PythonJson[] => {
    at++;
    const items: PythonJson[] = [];
    for (;;) {
      space();
      if (text[at] === close) return (at++, items);
      items.push(value());
      space();
      if (text[at] === ",") at++;
      else if (text[at] !== close) fail(`expected , or ${close}`);
    }
  };
  const dict = (): Map<string, PythonJson> => {
    at++;
    const entries = new Map<string, PythonJson>();
    for (;;) {
      space();
      if (text[at] === "}") return (at++, entries);
      const key = value();
      if (typeof key !== "string") fail("only string keys are kept");
      space();
      if (text[at++] !== ":") fail("expected :");
      entries.set(key as string, value());
      space();
      if (text[at] === ",") at++;
      else if (text[at] !== "}") fail("expected , or }");
    }
  };
  const string = (): string => {
    const quote = text[at++]!;
    let out = "";
    while (at < text.length && text[at] !== quote) {
      if (text[at] === "\\") {
        const next = text[at + 1];
        const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };
        if (next !== undefined && escapes[next] !== undefined) out += escapes[next];
        else out += `\\${next ?? ""}`;
        at += 2;
      } else out += text[at++];
    }
    if (text[at] !== quote) fail("unterminated string");
    at++;
    return out;
  };
  const result = value();
  space();
  if (at < text.length) fail("extra text");
  return result;
}
