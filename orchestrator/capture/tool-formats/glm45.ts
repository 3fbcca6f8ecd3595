// GLM-4.5's and 4.6's tool calls, as SGLang's glm45 detector reads them at 4ad990ba (tests/fixtures/sglang/
// parser-formats.md §6): <tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>…</tool_call>, values
// converted by the tool's schema types. A call without the newline after its name, an unclosed one, or one to a
// tool the request does not offer is dropped.
import { dumpPythonJson, type PythonJson } from "../../../lib/model/python-json.ts";
import { endAfter, type ToolFormat } from "./tool-format.ts";
import { schemaType, toolProperties } from "./schema-types.ts";
import { glmValue } from "./value-conversion.ts";

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";
const CALL = /^<tool_call>([\s\S]*?)(?:\\n|\n)([\s\S]*)<\/tool_call>$/;
const PAIR = /<arg_key>([\s\S]*?)<\/arg_key>(?:\\n|\s)*<arg_value>([\s\S]*?)<\/arg_value>/g;

export const GLM45: ToolFormat = {
  sglangName: "glm45",
  opens: [OPEN],
  unitEnd: endAfter(CLOSE),
  parse: (unit, tools) => {
    const match = CALL.exec(unit);
    if (!match) return { calls: [] };
    const name = match[1]!;
    const properties = toolProperties(tools, name);
    if (properties === null) return { calls: [] };
    const args = new Map<string, PythonJson>();
    for (const pair of match[2]!.matchAll(PAIR)) {
      const key = pair[1]!;
      args.set(key, glmValue(pair[2]!, Object.hasOwn(properties, key) ? schemaType(properties[key]) : null));
    }
    return { calls: [{ name, arguments: dumpPythonJson(args) }] };
  },
};
