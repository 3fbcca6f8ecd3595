// DeepSeek's tool-call markup, as SGLang's deepseekv3 and deepseekv31 detectors read it: a section
// <｜tool▁calls▁begin｜> … <｜tool▁calls▁end｜> of calls <｜tool▁call▁begin｜> … <｜tool▁call▁end｜>. V3 and R1 write
// `function<｜tool▁sep｜>NAME\n```json\nARGS\n```` in a call, V3.1 `NAME<｜tool▁sep｜>ARGS`. Arguments are re-written
// as Python's json.dumps writes them (SGLang sends json.dumps of the parsed object); a call to a tool the request
// does not offer is dropped, and a call that does not match (no ```json fence in V3, arguments that are not a JSON
// object) leaves the whole markup as content (tests/fixtures/sglang/parser-formats.md §1–2).
// While the section comes, a call starts once its name is complete (V3: the ```json fence after it; V3.1: the
// separator), offered, and its arguments show a JSON object; the arguments stream as json-prefix.ts finds them certain.
import type { Tool } from "../../../../contracts/chat.ts";
import { holdBack } from "../tag-holdback.ts";
import { JsonPrefix } from "./json-prefix.ts";
import { pythonArguments, type ParsedToolCall, type ParsedUnit, type SeenToolCall, type ToolFormat, type UnitReader } from "./tool-format.ts";

const CALLS_BEGIN = "<｜tool▁calls▁begin｜>";
const CALLS_END = "<｜tool▁calls▁end｜>";
const CALL_BEGIN = "<｜tool▁call▁begin｜>";
const CALL_END = "<｜tool▁call▁end｜>";
const CALL = /<｜tool▁call▁begin｜>([\s\S]*?)<｜tool▁call▁end｜>/g;
const SEP = "<｜tool▁sep｜>";

/** How a DeepSeek version writes one call: read whole, and its name and where its arguments start while it is open. */
interface CallMarkup {
  read(call: string): ParsedToolCall | null;
  head(callSoFar: string): { name: string; argumentsAt: number } | null;
}

/** A DeepSeek format: the calls section, each call read by `markup`, calls to tools not offered dropped. */
function deepseekFormat(sglangName: string, markup: CallMarkup): ToolFormat {
  return {
    sglangName,
    trimsTextBeforeCall: true,
    opens: [CALLS_BEGIN],
    close: CALLS_END,
    parse: (unit: string, tools: readonly Tool[]): ParsedUnit | null => {
      const found: ParsedToolCall[] = [];
      for (const match of unit.matchAll(CALL)) {
        const call = markup.read(match[1]!);
        if (call === null) return null;
        found.push(call);
      }
      if (found.length === 0) return null;
      const offered = new Set(tools.map((tool) => tool.function.name));
      return { calls: found.filter((call) => offered.has(call.name)) };
    },
    openUnit: (tools) => sectionReader(markup, new Set(tools.map((tool) => tool.function.name))),
  };
}

/** Reads a section as it comes: closed calls as `parse` reads them, then the open one's name and arguments so far. */
function sectionReader(markup: CallMarkup, offered: ReadonlySet<string>): UnitReader {
  const prefixes = new Map<number, JsonPrefix>(); // by the offset of the call's arguments in the section
  const closed = new Map<number, ParsedToolCall | null>(); // by the call's offset: read once, not on every piece
  return {
    read(unit) {
      const calls: SeenToolCall[] = [];
      for (let cursor = 0; ; ) {
        const begin = unit.indexOf(CALL_BEGIN, cursor);
        if (begin < 0) return calls;
        const from = begin + CALL_BEGIN.length;
        const end = unit.indexOf(CALL_END, from);
        if (end >= 0) {
          const call = closed.has(from) ? closed.get(from)! : markup.read(unit.slice(from, end));
          closed.set(from, call);
          if (call === null) return calls; // (the section will not parse: nothing more is certain)
          if (offered.has(call.name)) calls.push({ ...call, closed: true });
          cursor = end + CALL_END.length;
          continue;
        }
        const open = unit.slice(from);
        const head = markup.head(open);
        if (head === null || !offered.has(head.name)) return calls;
        const args = open.slice(head.argumentsAt, open.length - holdBack(open, [CALL_END], false));
        const prefix = prefixes.get(from + head.argumentsAt) ?? new JsonPrefix();
        prefixes.set(from + head.argumentsAt, prefix);
        const text = prefix.extend(args);
        if (prefix.shown) calls.push({ name: head.name, arguments: text, closed: false });
        return calls;
      }
    },
  };
}

const argumentsText = (json: string): string | null => pythonArguments(json.trim());

const V3_CALL = /^[^<]*?<｜tool▁sep｜>([\s\S]*?)\n```json\n([\s\S]*?)\n```$/;
const V3_HEAD = /^[^<]*?<｜tool▁sep｜>([\s\S]*?)\n```json\n/;

export const DEEPSEEK_V3 = deepseekFormat("deepseekv3", {
  read: (call) => {
    const match = V3_CALL.exec(call);
    const args = match ? argumentsText(match[2]!) : null;
    return match && args !== null ? { name: match[1]!.trim(), arguments: args } : null;
  },
  head: (call) => {
    const match = V3_HEAD.exec(call);
    return match ? { name: match[1]!.trim(), argumentsAt: match[0].length } : null;
  },
});

export const DEEPSEEK_V31 = deepseekFormat("deepseekv31", {
  read: (call) => {
    const at = call.indexOf(SEP);
    const args = at >= 0 ? argumentsText(call.slice(at + SEP.length)) : null;
    return args !== null ? { name: call.slice(0, at).trim(), arguments: args } : null;
  },
  head: (call) => {
    const at = call.indexOf(SEP);
    return at >= 0 ? { name: call.slice(0, at).trim(), argumentsAt: at + SEP.length } : null;
  },
});
