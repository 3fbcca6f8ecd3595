// The answer of a generation constrained by tool-choice-constraint.ts (tool_choice "required" or a named function):
// reasoning read as the family's reasoning parser reads it, then a JSON array of {"name", "parameters"} objects, which
// becomes the calls as SGLang's serving_chat makes them (orjson.loads, then json.dumps(parameters,
// ensure_ascii=False)). The calls go out whole at the end of the output; text that is not such an array stays content.
import type { AssistantMessage, ToolCall } from "../../contracts/chat.ts";
import { decodePythonJson, dumpPythonJson, type PythonJson } from "../../lib/model/python-json.ts";
import type { OutputDelta } from "./output-delta.ts";
import { answerMessage } from "./output-parser.ts";
import { newToolCallId } from "./streamed-calls.ts";

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

  constructor(private readonly reasoningParser: ReasoningReader) {}

  push(text: string): OutputDelta[] {
    return this.take(this.reasoningParser.push(text));
  }

  finish(matchedStop?: string | null): OutputDelta[] {
    const deltas = this.take(this.reasoningParser.finish(matchedStop));
    this.reasoningText = this.reasoningParser.message().reasoning_content ?? null;
    const calls = callsOf(this.arrayText);
    if (calls === null) {
      this.contentText = this.arrayText;
      if (this.arrayText.length > 0) deltas.push({ kind: "content", text: this.arrayText });
      return deltas;
    }
    for (const [index, call] of calls.entries()) {
      const id = newToolCallId();
      this.calls.push({ id, type: "function", function: call });
      deltas.push({ kind: "tool-call-start", index, id, name: call.name }, { kind: "tool-call-arguments", index, text: call.arguments });
    }
    return deltas;
  }

  get hasToolCalls(): boolean {
    return this.calls.length > 0;
  }

  message(): AssistantMessage {
    return answerMessage(this.contentText, this.reasoningText ?? this.reasoningParser.message().reasoning_content ?? null, this.calls);
  }

  /** Reasoning deltas pass; content is the array's text, held until the end. */
  private take(deltas: readonly OutputDelta[]): OutputDelta[] {
    const passed: OutputDelta[] = [];
    for (const delta of deltas) {
      if (delta.kind === "content") this.arrayText += delta.text;
      else passed.push(delta);
    }
    return passed;
  }
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
