// DeepSeek's tool-call markup, as SGLang's deepseekv3 and deepseekv31 detectors read it: a section
// <｜tool▁calls▁begin｜> … <｜tool▁calls▁end｜> of calls <｜tool▁call▁begin｜> … <｜tool▁call▁end｜>. V3 and R1 write
// `function<｜tool▁sep｜>NAME\n```json\nARGS\n```` in a call, V3.1 `NAME<｜tool▁sep｜>ARGS`. Arguments are re-written
// as Python's json.dumps writes them (SGLang sends json.dumps of the parsed object); a call to a tool the request
// does not offer is dropped, and a call that does not match (no ```json fence in V3, arguments that are not a JSON
// object) leaves the whole markup as content (tests/fixtures/sglang/parser-formats.md §1–2, SGLang 4ad990ba).
import type { Tool } from "../../../contracts/chat.ts";
import { endAfter, pythonArguments, type ParsedToolCall, type ParsedUnit, type ToolFormat } from "./tool-format.ts";

const CALLS_BEGIN = "<｜tool▁calls▁begin｜>";
const CALLS_END = "<｜tool▁calls▁end｜>";
const CALL = /<｜tool▁call▁begin｜>([\s\S]*?)<｜tool▁call▁end｜>/g;
const SEP = "<｜tool▁sep｜>";

/** A DeepSeek format: the calls section, each call read by `readCall`, calls to tools not offered dropped. */
function deepseekFormat(sglangName: string, readCall: (call: string) => ParsedToolCall | null): ToolFormat {
  return {
    sglangName,
    opens: [CALLS_BEGIN],
    unitEnd: endAfter(CALLS_END),
    parse: (unit: string, tools: readonly Tool[]): ParsedUnit | null => {
      const found: ParsedToolCall[] = [];
      for (const match of unit.matchAll(CALL)) {
        const call = readCall(match[1]!);
        if (call === null) return null;
        found.push(call);
      }
      if (found.length === 0) return null;
      const offered = new Set(tools.map((tool) => tool.function.name));
      return { calls: found.filter((call) => offered.has(call.name)) };
    },
  };
}

const argumentsText = (json: string): string | null => pythonArguments(json.trim());

export const DEEPSEEK_V3 = deepseekFormat("deepseekv3", (call) => {
  const match = /^[^<]*?<｜tool▁sep｜>([\s\S]*?)\n```json\n([\s\S]*?)\n```$/.exec(call);
  const args = match ? argumentsText(match[2]!) : null;
  return match && args !== null ? { name: match[1]!.trim(), arguments: args } : null;
});

export const DEEPSEEK_V31 = deepseekFormat("deepseekv31", (call) => {
  const at = call.indexOf(SEP);
  const args = at >= 0 ? argumentsText(call.slice(at + SEP.length)) : null;
  return args !== null ? { name: call.slice(0, at).trim(), arguments: args } : null;
});
