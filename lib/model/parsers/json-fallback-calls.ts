// The answer to a forced tool call under a structural tag (upstream) whose output has no call markup but is a JSON
// array of {"name", "parameters"}: read as calls, as SGLang's non-streamed answer reads it. Ignores all else.
import type { AssistantMessage, ToolCall } from "../../../contracts/chat.ts";
import { callsOf } from "./json-array-calls.ts";
import type { OutputDelta } from "./output-delta.ts";
import { answerMessage } from "./markup-parser.ts";
import { StreamedCalls } from "./streamed-calls.ts";

/** The family parser this wraps: an OutputParser or a HarmonyParser reading the family's own markup. */
export interface FamilyAnswerParser {
  push(text: string): OutputDelta[];
  finish(matchedStop?: string | null): OutputDelta[];
  message(): AssistantMessage;
  readonly hasToolCalls: boolean;
}

/**
 * What each detector's has_tool_call looks for, by --tool-call-parser (where: tests/fixtures/sglang-parsers/
 * citations.json, call_markers). A JSON array never starts with llama3's "{".
 */
export const CALL_MARKERS: Record<string, readonly string[]> = {
  qwen: ["<tool_call>\n"],
  qwen3_coder: ["<tool_call>"],
  deepseekv3: ["<｜tool▁calls▁begin｜>"],
  deepseekv31: ["<｜tool▁calls▁begin｜>"],
  llama3: ["<|python_tag|>"],
  "gpt-oss": ["<|start|>assistant<|channel|>commentary"],
};

const isJsonSpace = (character: string): boolean => character === " " || character === "\t" || character === "\n" || character === "\r";

/**
 * SGLang's stream keeps such an array as content (its FunctionCallParser finds no markup); the proxy answers one way
 * streamed or whole, the whole answer's: content that may still become such an array (JSON whitespace, then "[") is
 * held back until the output ends or something else comes, then sent as calls or as the content it was.
 */
export class JsonFallbackCalls {
  private held: OutputDelta[] = [];
  private heldText = "";
  private holding = true; // until the content shows it is no array
  private opened = false; // the content's first character past JSON whitespace was "["
  private readonly calls: ToolCall[] = [];
  private fallback = false;

  constructor(
    private readonly family: FamilyAnswerParser,
    private readonly toolCallParser: string,
  ) {}

  push(text: string): OutputDelta[] {
    return this.take(this.family.push(text));
  }

  finish(matchedStop?: string | null): OutputDelta[] {
    const deltas = this.take(this.family.finish(matchedStop));
    if (!this.holding || this.held.length === 0) return deltas;
    const calls = this.family.hasToolCalls || this.hasMarkup(this.heldText) ? null : callsOf(this.heldText);
    if (calls === null) return [...deltas, ...this.release()];
    this.fallback = true;
    this.held = [];
    return [...deltas, ...new StreamedCalls(this.calls).settle(calls)];
  }

  get hasToolCalls(): boolean {
    return this.fallback ? this.calls.length > 0 : this.family.hasToolCalls;
  }

  message(): AssistantMessage {
    const message = this.family.message();
    return this.fallback ? answerMessage("", message.reasoning_content ?? null, this.calls) : message;
  }

  private hasMarkup(text: string): boolean {
    return (CALL_MARKERS[this.toolCallParser] ?? []).some((marker) => text.includes(marker));
  }

  /** Content is held while it may be the array; anything else that comes first ends the hold. */
  private take(deltas: readonly OutputDelta[]): OutputDelta[] {
    const passed: OutputDelta[] = [];
    for (const delta of deltas) {
      if (!this.holding) passed.push(delta);
      else if (delta.kind === "content") {
        this.held.push(delta);
        this.heldText += delta.text;
        if (this.opened) continue;
        const first = [...delta.text].find((character) => !isJsonSpace(character));
        if (first === "[") this.opened = true;
        else if (first !== undefined) passed.push(...this.release());
      } else if (delta.kind === "reasoning" && this.held.length === 0) passed.push(delta);
      else passed.push(...this.release(), delta);
    }
    return passed;
  }

  private release(): OutputDelta[] {
    this.holding = false;
    const held = this.held;
    this.held = [];
    return held;
  }
}
