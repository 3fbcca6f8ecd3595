// GLM-4.5's and 4.6's tool calls, as SGLang's glm45 detector reads them upstream (tests/fixtures/sglang/
// parser-formats.md §6): <tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>…</tool_call>, values
// converted by the tool's schema types. A call without the newline after its name, an unclosed one, or one to a
// tool the request does not offer is dropped. While it comes, the call starts at the newline after an offered name
// and each pair goes out once its </arg_value> has come (parameter-prefix.ts).
import type { Tool } from "../../../../contracts/chat.ts";
import { dumpPythonJson, type PythonJson } from "../../python-json.ts";
import { ParameterPrefix, type ClosedParameter } from "./parameter-prefix.ts";
import { type ToolFormat, type UnitReader } from "./tool-format.ts";
import { schemaType, toolProperties } from "./schema-types.ts";
import { glmValue } from "./value-conversion.ts";

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";
const CALL = /^<tool_call>([\s\S]*?)(?:\\n|\n)([\s\S]*)<\/tool_call>$/;
const NAME_END = /\\n|\n/;
const PAIR = /<arg_key>([\s\S]*?)<\/arg_key>(?:\\n|\s)*<arg_value>([\s\S]*?)<\/arg_value>/g;

/** The pairs in a call's body, in order, with their offsets (and ends) in the unit and their values converted on demand. */
function pairs(body: string, properties: Record<string, unknown>, offset = 0): (ClosedParameter & { end: number })[] {
  return [...body.matchAll(PAIR)].map((pair) => {
    const key = pair[1]!;
    const at = offset + pair.index;
    return { at, end: at + pair[0].length, key, value: (): PythonJson => glmValue(pair[2]!, Object.hasOwn(properties, key) ? schemaType(properties[key]) : null) };
  });
}

export const GLM45: ToolFormat = {
  sglangName: "glm45",
  trimsTextBeforeCall: true,
  opens: [OPEN],
  close: CLOSE,
  parse: (unit, tools) => {
    const match = CALL.exec(unit);
    if (!match) return { calls: [] };
    const name = match[1]!;
    const properties = toolProperties(tools, name);
    if (properties === null) return { calls: [] };
    const args = new Map<string, PythonJson>();
    for (const pair of pairs(match[2]!, properties)) args.set(pair.key, pair.value());
    return { calls: [{ name, arguments: dumpPythonJson(args) }] };
  },
  openUnit: (tools) => callReader(tools),
};

/** Reads an open call: its name once the newline after it has come, then its closed pairs. */
function callReader(tools: readonly Tool[]): UnitReader {
  const prefix = new ParameterPrefix();
  const found: ClosedParameter[] = [];
  let scanned = -1; // where the pairs found so far end in the unit (the search goes on from there, as matchAll does)
  return {
    read(unit) {
      const nameEnd = NAME_END.exec(unit.slice(OPEN.length)); // (a `\` at the end may still become `\n`: no match yet)
      if (nameEnd === null) return [];
      const name = unit.slice(OPEN.length, OPEN.length + nameEnd.index);
      const properties = toolProperties(tools, name);
      if (properties === null) return [];
      if (scanned < 0) scanned = OPEN.length + nameEnd.index + nameEnd[0].length;
      // (no new </arg_value>, no new pair: the pattern's lazy search through an open value is what would cost)
      const more = unit.includes("</arg_value>", scanned) ? pairs(unit.slice(scanned), properties, scanned) : [];
      found.push(...more);
      if (more.length > 0) scanned = more.at(-1)!.end;
      return [{ name, arguments: prefix.text(found), closed: false }];
    },
  };
}
