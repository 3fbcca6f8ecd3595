// Qwen3-Coder's and Qwen3.5's XML tool calls, as SGLang's qwen3_coder detector reads them at 4ad990ba
// (tests/fixtures/sglang/parser-formats.md §5): <tool_call><function=NAME><parameter=KEY>\nVALUE\n</parameter>…
// </function></tool_call>, values converted by the tool's schema types; a tool the request does not offer is kept,
// its values strings.
import { dumpPythonJson, type PythonJson } from "../../../lib/model/python-json.ts";
import { endAfter, type ParsedToolCall, type ToolFormat } from "./tool-format.ts";
import { toolProperties } from "./schema-types.ts";
import { coderValue } from "./value-conversion.ts";

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";
const FUNCTION = /<function=([\s\S]*?)<\/function>|<function=([\s\S]*)$/g;
const PARAMETER = /<parameter=([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|(?=<\/function>)|$)/g;

export const QWEN3_CODER: ToolFormat = {
  sglangName: "qwen3_coder",
  opens: [OPEN],
  unitEnd: endAfter(CLOSE),
  parse: (unit, tools) => {
    const body = unit.slice(OPEN.length, unit.endsWith(CLOSE) ? -CLOSE.length : undefined);
    const calls: ParsedToolCall[] = [];
    for (const match of body.matchAll(FUNCTION)) {
      const inner = match[1] ?? match[2] ?? "";
      const gt = inner.indexOf(">");
      if (gt < 0) continue;
      const name = inner.slice(0, gt);
      const properties = toolProperties(tools, name);
      const args = new Map<string, PythonJson>();
      for (const parameter of inner.slice(gt + 1).matchAll(PARAMETER)) {
        const text = parameter[1]!;
        const at = text.indexOf(">");
        if (at < 0) continue;
        const key = text.slice(0, at);
        const value = text.slice(at + 1).replace(/^\n/, "").replace(/\n$/, "");
        args.set(key, coderValue(value, properties?.[key], properties !== null && Object.hasOwn(properties, key)));
      }
      calls.push({ name, arguments: dumpPythonJson(args) });
    }
    return calls.length > 0 ? { calls } : null;
  },
};
