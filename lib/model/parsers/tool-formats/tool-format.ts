// What a tool-call format is to the output parser: the text that opens its markup, where one complete unit of it
// ends, the calls in that unit, and what is already certain of them while the unit is still coming (so names and
// arguments stream). One file per family's format beside this one; the Qwen 2.5 format (<tool_call>{json}</tool_call>)
// streams its arguments inside output-parser.ts and is not one of these.
import type { Tool } from "../../../../contracts/chat.ts";
import { decodePythonJson, dumpPythonJson, type PythonJson } from "../../python-json.ts";

export interface ParsedToolCall {
  name: string;
  /** The arguments as JSON text (an object). */
  arguments: string;
}

export interface ToolFormat {
  /** SGLang's --tool-call-parser name for the same markup. */
  sglangName: string;
  /** Texts that open tool-call markup anywhere in the answer (held back while one may still be coming). */
  opens: readonly string[];
  /** Texts that open it only at the very start of the answer, before any whitespace (Llama 3's bare JSON call). */
  startOpens?: readonly string[];
  /**
   * SGLang's whole-output parse strips the text before the first call (`text[:idx].strip()`: qwen25, hermes,
   * deepseekv3/v31, glm45); llama3 and qwen3_coder keep it as written.
   */
  trimsTextBeforeCall: boolean;
  /** The text that ends one unit of markup (the unit runs up to and with its first occurrence); null: it runs to the end of the output. */
  close: string | null;
  /**
   * The calls in one unit (the end of the output may cut it short), without calls to tools the request does not
   * offer (SGLang drops those); null when it is no well-formed call: it then stays content.
   */
  parse(unit: string, tools: readonly Tool[]): ParsedUnit | null;
  /** A reader of one unit while it is incomplete (one per unit: it may keep what it read). */
  openUnit(tools: readonly Tool[]): UnitReader;
}

/**
 * Reads a unit as it grows. `read` is given the unit so far (a longer text each time) and returns the calls whose
 * names are certain, in order, with the arguments text certain so far: for a well-formed unit, `parse` later gives
 * the same calls in the same order, each with arguments that start with that text (and are that text once the call's
 * markup closed). Calls to tools not offered are left out here as `parse` leaves them out.
 */
export interface UnitReader {
  read(unitSoFar: string): SeenToolCall[];
}

/** A call as a UnitReader sees it. */
export interface SeenToolCall extends ParsedToolCall {
  /**
   * The call's markup has closed and `arguments` are what `parse` gives for it (which may disagree with the prefix
   * read before, when the text was not well formed). Until then `arguments` only grow: each read returns the previous
   * text plus more (so the stream need not compare them again on every piece).
   */
  closed: boolean;
}

/** The calls of a unit, and text the parser keeps as content after them (Llama 3's leftovers). */
export interface ParsedUnit {
  calls: ParsedToolCall[];
  after?: string;
}

/**
 * Arguments JSON as SGLang sends it: the text decoded as Python decodes it, then json.dumps(…, ensure_ascii=False)
 * (", " and ": ", floats kept floats, key order kept); null when the text is not a JSON object.
 */
export function pythonArguments(text: string): string | null {
  let value: PythonJson;
  try {
    value = decodePythonJson(text);
  } catch {
    return null;
  }
  return value instanceof Map ? dumpPythonJson(value) : null;
}
