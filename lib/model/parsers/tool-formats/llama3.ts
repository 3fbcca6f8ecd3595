// Llama 3.1–3.3's JSON tool calls, as SGLang's llama3 detector reads them upstream (tests/fixtures/sglang/
// parser-formats.md §3): `<|python_tag|>{"name": …, "arguments"|"parameters": {…}}`, or the same JSON as the very
// first character of the answer; several calls separated by `;`. The calls run to the end of the output; what is
// left after the last one that parses is content, and a call to a tool the request does not offer is dropped.
// While they come, a call starts once its "name" string is complete and offered, and its "parameters" (or
// "arguments") stream as json-prefix.ts finds them certain; an object that is not JSON (Python's quotes) goes out whole.
import type { Tool } from "../../../../contracts/chat.ts";
import { decodePythonJson, dumpPythonJson, type PythonJson } from "../../python-json.ts";
import { JsonPrefix, type PrefixMember } from "./json-prefix.ts";
import { literalEval } from "./python-literal.ts";
import type { ParsedToolCall, SeenToolCall, ToolFormat, UnitReader } from "./tool-format.ts";

const TAG = "<|python_tag|>";

/** The end of the object that starts at `from` (matching braces outside strings), or -1. */
function objectEnd(text: string, from: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let at = from; at < text.length; at++) {
    const char = text[at]!;
    if (quote) {
      if (char === "\\") at++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return at + 1;
  }
  return -1;
}

function objectAt(text: string, from: number): { value: PythonJson; end: number } | null {
  if (text[from] !== "{") return null;
  const end = objectEnd(text, from);
  if (end < 0) return null;
  for (const read of [decodePythonJson, literalEval]) {
    try {
      return { value: read(text.slice(from, end)), end };
    } catch {
      // the next reader
    }
  }
  return null;
}

/** The call an object makes: "parameters" when it is a non-empty object, else "arguments"; null unless it names an offered tool. */
function callOf(value: PythonJson, offered: ReadonlySet<string>): ParsedToolCall | null {
  const object = value instanceof Map ? value : null;
  const name = object?.get("name");
  if (typeof name !== "string" || !offered.has(name)) return null;
  const parameters = object!.get("parameters");
  const args = parameters instanceof Map && parameters.size > 0 ? parameters : (object!.get("arguments") ?? new Map());
  return { name, arguments: dumpPythonJson(args) };
}

const skipSpace = (text: string, at: number): number => {
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
};

const callsText = (unit: string): string => (unit.startsWith(TAG) ? unit.slice(TAG.length) : unit);

export const LLAMA3: ToolFormat = {
  sglangName: "llama3",
  trimsTextBeforeCall: false,
  opens: [TAG],
  startOpens: ["{"],
  close: null,
  parse: (unit, tools) => {
    const text = callsText(unit);
    const offered = new Set(tools.map((tool) => tool.function.name));
    const calls: ParsedToolCall[] = [];
    let at = 0;
    let parsedUpTo = 0;
    while (at < text.length) {
      at = skipSpace(text, at);
      const found = objectAt(text, at);
      if (!found) {
        const next = text.indexOf('{"name":', at + 1);
        if (next < 0) break;
        at = next;
        continue;
      }
      const call = callOf(found.value, offered);
      if (call) calls.push(call);
      parsedUpTo = at = found.end + 1; // (one separator character, whatever it is)
    }
    if (calls.length === 0 && parsedUpTo === 0) return null;
    const after = text.slice(Math.min(parsedUpTo, text.length)).trim();
    return after.length > 0 ? { calls, after } : { calls };
  },
  openUnit: (tools) => callsReader(tools),
};

/** What the reader knows of one object: its prefix while open, the member its arguments come from, its call once closed. */
interface ObjectRead {
  prefix: JsonPrefix;
  from?: "parameters" | "arguments";
  closed?: { end: number; call: ParsedToolCall | null } | null; // (null: it closed but does not parse)
}

/** Reads the calls as they come: closed objects as `parse` reads them, then the open one's name and arguments so far. */
function callsReader(tools: readonly Tool[]): UnitReader {
  const offered = new Set(tools.map((tool) => tool.function.name));
  const objects = new Map<number, ObjectRead>(); // by the object's offset
  return {
    read(unit) {
      const text = callsText(unit);
      const calls: SeenToolCall[] = [];
      for (let at = skipSpace(text, 0); text[at] === "{"; at = skipSpace(text, at)) {
        const object = objects.get(at) ?? { prefix: new JsonPrefix() };
        objects.set(at, object);
        if (object.closed === undefined) {
          const prefix = object.prefix;
          prefix.extend(text.slice(at));
          // (an object that is not JSON, Python's quotes say, is found by its braces as `parse` finds it)
          const end = prefix.end >= 0 ? at + prefix.end : prefix.stopped ? objectEnd(text, at) : -1;
          if (end < 0) {
            const call = openCall(object, offered);
            if (call) calls.push({ ...call, closed: false });
            return calls;
          }
          const found = objectAt(text, at);
          object.closed = found && { end, call: callOf(found.value, offered) };
        }
        if (object.closed === null) return calls; // (`parse` looks further for a `{"name":`; nothing here is certain any more)
        if (object.closed.call) calls.push({ ...object.closed.call, closed: true });
        at = object.closed.end + 1;
      }
      return calls;
    },
  };
}

/**
 * The open object's call once its name is complete and offered: its "parameters" once they show a key (an empty
 * object gives way to "arguments"), else its "arguments" so far; once one of them was taken, that one (so that the
 * text only grows; a "parameters" after "arguments" makes the final call disagree, settled by streamed-calls.ts).
 */
function openCall(object: ObjectRead, offered: ReadonlySet<string>): ParsedToolCall | null {
  const { prefix } = object;
  const member = (key: string): PrefixMember | undefined => prefix.members.find((entry) => entry.key === key);
  const value = (entry: PrefixMember): string => prefix.prefix.slice(entry.from, entry.to < 0 ? undefined : entry.to);
  const nameMember = member("name");
  if (nameMember === undefined || nameMember.to < 0) return null;
  const name = JSON.parse(value(nameMember)) as unknown;
  if (typeof name !== "string" || !offered.has(name)) return null;
  if (object.from === undefined) {
    const parameters = member("parameters");
    if (parameters !== undefined && value(parameters).startsWith('{"')) object.from = "parameters";
    else if (parameters !== undefined && parameters.to < 0) return { name, arguments: "" }; // (empty or not: not known yet)
    else if (member("arguments") !== undefined) object.from = "arguments";
  }
  const chosen = object.from && member(object.from);
  return { name, arguments: chosen ? value(chosen) : "" };
}
