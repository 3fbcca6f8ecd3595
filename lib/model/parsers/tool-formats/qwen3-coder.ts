// Qwen3-Coder's and Qwen3.5's XML tool calls, as upstream's qwen3_coder detector reads them (tests/fixtures/sglang/
// parser-formats.md §5): <tool_call><function=NAME><parameter=KEY>\nVALUE\n</parameter>…</function></tool_call>,
// values converted by the tool's schema types; a tool not offered is kept, its values strings. The fork's SGLang reads
// values without the schema (safeValue), strips names and drops calls to tools not offered. A call starts at the `>`
// after its name, each parameter goes out once it has closed (parameter-prefix.ts), the arguments end at </function>.
import type { Tool } from "../../../../contracts/chat.ts";
import { dumpPythonJson, type PythonJson } from "../../python-json.ts";
import { ParameterPrefix, type ClosedParameter } from "./parameter-prefix.ts";
import { type ParsedToolCall, type SeenToolCall, type ToolFormat, type UnitReader } from "./tool-format.ts";
import { toolProperties } from "./schema-types.ts";
import { stripPython } from "../../python-strip.ts";
import { coderValue, safeValue } from "./value-conversion.ts";

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";
const FUNCTION_OPEN = "<function=";
const FUNCTION_CLOSE = "</function>";
const FUNCTION = /<function=([\s\S]*?)<\/function>|<function=([\s\S]*)$/g;
const PARAMETER_OPEN = "<parameter=";
const PARAMETER_CLOSE = "</parameter>";

/** How an SGLang commit reads names and values (a name as written or stripped; a value by its schema or without) and whether it drops calls to tools not offered. */
interface ValueReading {
  name(text: string): string;
  value(text: string, schema: unknown, known: boolean): PythonJson;
  offeredOnly: boolean;
}

/** Upstream: names as written, values by the schema's type. */
const BY_SCHEMA: ValueReading = { name: (text) => text, value: coderValue, offeredOnly: false };

/** The fork: names stripped, values by _safe_val, a call to a tool not offered dropped (where: citations.json, qwen3_coder_fork). */
const SAFE_VAL: ValueReading = { name: (text) => stripPython(text, null, "both"), value: (text) => safeValue(text), offeredOnly: true };

/** Whether a read call is kept: always upstream, only for an offered tool under the fork. */
function kept(call: ParsedToolCall, tools: readonly Tool[], reading: ValueReading): boolean {
  return !reading.offeredOnly || tools.some((tool) => tool.function.name === call.name);
}

/**
 * The parameters of a function's text after its name, in order, as SGLang's pattern
 * `<parameter=(.*?)(?:</parameter>|(?=<parameter=)|(?=</function>)|$)` finds them: each runs to the first of those
 * (found with indexOf: the open function is read again on every piece, and the lazy pattern costs far more).
 * `closedOnly`: only those whose end has come, not one that merely runs to the end of the text so far.
 */
function parameters(text: string, properties: Record<string, unknown> | null, offset: number, closedOnly: boolean, reading: ValueReading): ClosedParameter[] {
  const found: ClosedParameter[] = [];
  // (the first </function> and </parameter> at or after `from`: each searched again only once passed, not for every
  // parameter, which scanned an open function to its end once per parameter)
  let functionClose = -2;
  let parameterClose = -2;
  for (let cursor = 0; ; ) {
    const start = text.indexOf(PARAMETER_OPEN, cursor);
    if (start < 0) return found;
    const from = start + PARAMETER_OPEN.length;
    if (functionClose === -2 || (functionClose >= 0 && functionClose < from)) functionClose = text.indexOf(FUNCTION_CLOSE, from);
    if (parameterClose === -2 || (parameterClose >= 0 && parameterClose < from)) parameterClose = text.indexOf(PARAMETER_CLOSE, from);
    const ends = [parameterClose, text.indexOf(PARAMETER_OPEN, from), functionClose].filter((at) => at >= 0);
    if (closedOnly && ends.length === 0) return found;
    const end = ends.length > 0 ? Math.min(...ends) : text.length;
    cursor = text.startsWith(PARAMETER_CLOSE, end) ? end + PARAMETER_CLOSE.length : end;
    const body = text.slice(from, end);
    const at = body.indexOf(">");
    if (at < 0) continue;
    const key = reading.name(body.slice(0, at));
    const value = body.slice(at + 1).replace(/^\n/, "").replace(/\n$/, "");
    found.push({ at: offset + start, key, value: (): PythonJson => reading.value(value, properties?.[key], properties !== null && Object.hasOwn(properties, key)) });
  }
}

/** A function's text (after `<function=`, up to its </function>) as a call, or null without the `>` after its name. */
function functionCall(inner: string, tools: readonly Tool[], reading: ValueReading): ParsedToolCall | null {
  const gt = inner.indexOf(">");
  if (gt < 0) return null;
  const name = reading.name(inner.slice(0, gt));
  const args = new Map<string, PythonJson>();
  for (const parameter of parameters(inner.slice(gt + 1), toolProperties(tools, name), 0, false, reading)) args.set(parameter.key, parameter.value());
  return { name, arguments: dumpPythonJson(args) };
}

function qwen3CoderFormat(reading: ValueReading): ToolFormat {
  return {
    sglangName: "qwen3_coder",
    trimsTextBeforeCall: false,
    opens: [OPEN],
    close: CLOSE,
    parse: (unit, tools) => {
      const body = unit.slice(OPEN.length, unit.endsWith(CLOSE) ? -CLOSE.length : undefined);
      const calls: ParsedToolCall[] = [];
      let found = 0;
      for (const match of body.matchAll(FUNCTION)) {
        const call = functionCall(match[1] ?? match[2] ?? "", tools, reading);
        if (call) found++;
        if (call && kept(call, tools, reading)) calls.push(call);
      }
      // (a unit whose calls were all dropped is no content either: the fork's whole-output parse removes the block)
      return found > 0 ? { calls } : null;
    },
    openUnit: (tools) => unitReader(tools, reading),
  };
}

/** As upstream's SGLang reads it. */
export const QWEN3_CODER = qwen3CoderFormat(BY_SCHEMA);
/** As the fork's SGLang reads it. */
export const QWEN3_CODER_DCE8B060 = qwen3CoderFormat(SAFE_VAL);

/** Reads an open unit: closed functions as `parse` reads them, then the open one's name and closed parameters. */
function unitReader(tools: readonly Tool[], reading: ValueReading): UnitReader {
  const prefix = new ParameterPrefix();
  const closed = new Map<number, ParsedToolCall | null>(); // by the function's offset: read once, not on every piece
  return {
    read(unit) {
      const calls: SeenToolCall[] = [];
      for (let cursor = OPEN.length; ; ) {
        const start = unit.indexOf(FUNCTION_OPEN, cursor);
        if (start < 0) return calls;
        const from = start + FUNCTION_OPEN.length;
        const close = unit.indexOf(FUNCTION_CLOSE, from);
        if (close >= 0) {
          const call = closed.has(from) ? closed.get(from)! : functionCall(unit.slice(from, close), tools, reading);
          closed.set(from, call);
          if (call && kept(call, tools, reading)) calls.push({ ...call, closed: true });
          cursor = close + FUNCTION_CLOSE.length;
          continue;
        }
        const gt = unit.indexOf(">", from);
        if (gt < 0) return calls;
        const name = reading.name(unit.slice(from, gt));
        if (!kept({ name, arguments: "" }, tools, reading)) return calls;
        calls.push({ name, arguments: prefix.text(parameters(unit.slice(gt + 1), toolProperties(tools, name), gt + 1, true, reading)), closed: false });
        return calls;
      }
    },
  };
}
