// The answer of a generation constrained by a JSON schema (tool-choice-constraint.ts: tool_choice "required" or a
// named function): reasoning read as the family's reasoning parser reads it, then a JSON array of {"name",
// "parameters"} objects, whose items become calls as SGLang's serving_chat makes them (orjson.loads, then
// json.dumps(parameters, ensure_ascii=False)). The calls stream as SGLang's JsonArrayParser streams them: each name
// once it is complete, then its arguments as they become certain; text that is not such an array stays content.
import type { AssistantMessage, ToolCall } from "../../../contracts/chat.ts";
import { decodePythonJson, dumpPythonJson, type PythonJson } from "../python-json.ts";
import type { OutputDelta } from "./output-delta.ts";
import { answerMessage } from "./markup-parser.ts";
import { StreamedCalls } from "./streamed-calls.ts";
import { JsonPrefix } from "./tool-formats/json-prefix.ts";
import type { SeenToolCall } from "./tool-formats/tool-format.ts";

/** The parser that reads the reasoning (the family's, with tool calls off); its content is the array's text. */
export interface ReasoningReader {
  push(text: string): OutputDelta[];
  finish(matchedStop?: string | null): OutputDelta[];
  message(): AssistantMessage;
}

export class JsonArrayCalls {
  private arrayText = "";
  private reasoningText: string | null = null;
  private contentText = "";
  private readonly calls: ToolCall[] = [];
  private readonly streamed = new StreamedCalls(this.calls);
  private readonly items = new ArrayItems();

  constructor(private readonly reasoningParser: ReasoningReader) {}

  push(text: string): OutputDelta[] {
    const deltas = this.take(this.reasoningParser.push(text));
    deltas.push(...this.streamed.update(this.items.read(this.arrayText)));
    return deltas;
  }

  finish(matchedStop?: string | null): OutputDelta[] {
    const deltas = this.take(this.reasoningParser.finish(matchedStop));
    this.reasoningText = this.reasoningParser.message().reasoning_content ?? null;
    const calls = callsOf(this.arrayText);
    // (calls already started stay, with the final arguments' remainder: streamed-calls.ts's rule)
    const started = this.streamed.unitStarted;
    deltas.push(...this.streamed.settle(calls));
    if (calls === null && !started) {
      this.contentText = this.arrayText;
      if (this.arrayText.length > 0) deltas.push({ kind: "content", text: this.arrayText });
    }
    return deltas;
  }

  get hasToolCalls(): boolean {
    return this.calls.length > 0;
  }

  message(): AssistantMessage {
    return answerMessage(this.contentText, this.reasoningText ?? this.reasoningParser.message().reasoning_content ?? null, this.calls);
  }

  /** Reasoning deltas pass; content is the array's text, read for calls. */
  private take(deltas: readonly OutputDelta[]): OutputDelta[] {
    const passed: OutputDelta[] = [];
    for (const delta of deltas) {
      if (delta.kind === "content") this.arrayText += delta.text;
      else passed.push(delta);
    }
    return passed;
  }
}

const skipJsonSpace = (text: string, at: number): number => {
  while (at < text.length && (text[at] === " " || text[at] === "\t" || text[at] === "\n" || text[at] === "\r")) at++;
  return at;
};

/**
 * Reads the array's items as its text grows: each `{…}` item by a JsonPrefix (the stable prefix of its json.dumps
 * form), a call once its "name" string is complete, its arguments the "parameters" member's prefix so far; an item
 * that closed gives its final call. Stops at the first text that is no such array.
 */
class ArrayItems {
  private readonly prefixes = new Map<number, JsonPrefix>(); // by the item's offset

  read(text: string): SeenToolCall[] {
    const seen: SeenToolCall[] = [];
    let at = skipJsonSpace(text, 0);
    if (text[at] !== "[") return seen;
    for (at = skipJsonSpace(text, at + 1); text[at] === "{"; ) {
      const prefix = this.prefixes.get(at) ?? new JsonPrefix();
      this.prefixes.set(at, prefix);
      prefix.extend(text.slice(at));
      const call = itemCall(prefix);
      if (prefix.end < 0) {
        if (call && !prefix.stopped) seen.push({ ...call, closed: false });
        return seen;
      }
      if (!call) return seen;
      seen.push({ ...call, closed: true });
      at = skipJsonSpace(text, at + prefix.end);
      if (text[at] !== ",") return seen;
      at = skipJsonSpace(text, at + 1);
    }
    return seen;
  }
}

/** An item's call as far as its prefix goes: null until its name is a complete string. */
function itemCall(prefix: JsonPrefix): { name: string; arguments: string } | null {
  const member = (key: string) => prefix.members.find((entry) => entry.key === key);
  const value = (entry: { from: number; to: number }): string => prefix.prefix.slice(entry.from, entry.to < 0 ? undefined : entry.to);
  const nameMember = member("name");
  if (nameMember === undefined || nameMember.to < 0) return null;
  const name = JSON.parse(value(nameMember)) as unknown;
  if (typeof name !== "string") return null;
  const parameters = member("parameters");
  return { name, arguments: parameters ? value(parameters) : "" };
}

/** The calls of the array's text, or null when it is not an array of objects with a string name and parameters. */
export function callsOf(text: string): { name: string; arguments: string }[] | null {
  let value: PythonJson;
  try {
    value = decodePythonJson(text.trim());
  } catch {
    return null;
  }
  if (!Array.isArray(value)) return null;
  const calls: { name: string; arguments: string }[] = [];
  for (const item of value) {
    if (!(item instanceof Map)) return null;
    const name = item.get("name");
    if (typeof name !== "string" || !item.has("parameters")) return null;
    calls.push({ name, arguments: dumpPythonJson(item.get("parameters")!) });
  }
  return calls;
}
