// Incremental parser of a model's decoded output: reasoning (<think>…</think>, as SGLang's qwen3, deepseek-r1 and
// glm45 reasoning parsers read it, its edges and a <tool_call> that ends it as the plan's SGLang reads them), tool
// calls (Qwen 2.5's <tool_call>{json}</tool_call> streamed argument by argument; other families' markup through their
// ToolFormat, name first and then arguments as its UnitReader finds them certain, settled by streamed-calls.ts) and
// plain content, as OpenAI deltas. Ignores tokens, HTTP and SSE framing.
import type { Tool } from "../../../contracts/chat.ts";
import { MarkupParser } from "./markup-parser.ts";
import type { OutputDelta } from "./output-delta.ts";
import { newToolCallId } from "./streamed-calls.ts";
import { holdBack, holdBackTagsAndStops } from "./tag-holdback.ts";
import { GrowingText } from "./growing-text.ts";
import type { ToolFormat, UnitReader } from "./tool-formats/tool-format.ts";

export interface OutputParserOptions {
  reasoning: boolean; // a <think>…</think> reasoning parser on
  startInReasoning: boolean; // the generation prompt already opened <think> (or the parser takes the output to start inside it)
  toolCalls: boolean; // a tool-call parser on (tools sent and tool_choice is not "none")
  /**
   * A <tool_call> inside unclosed reasoning ends it there (upstream's qwen3 and glm45 reasoning parsers: Qwen3 and
   * GLM-4.5/4.6 open a call without closing </think>); the text from it on is the answer's. Default false.
   */
  toolCallEndsReasoning?: boolean;
  /**
   * Whitespace at the edges of reasoning and content: "kept" as the model wrote it (upstream), or "trimmed" (the
   * fork's SGLang strips it in its reasoning parser: only with a reasoning parser). Either
   * way the text before a tool call loses its trailing whitespace where the format's SGLang detector strips it, and
   * whitespace after a call is no content. Default "trimmed".
   */
  edges?: "kept" | "trimmed";
  /** The family's tool-call markup; absent: Qwen 2.5's <tool_call>{json}</tool_call>, streamed argument by argument. */
  toolFormat?: ToolFormat;
  /** The request's tools (formats that type parameter values by the tool's JSON schema read them). */
  tools?: readonly Tool[];
  stop?: readonly string[]; // client stop strings: never shown, held back while they may still match
}

const THINK_OPEN = "<think>";
const THINK_CLOSE = "</think>";
const TOOL_OPEN = "<tool_call>";
const TOOL_CLOSE = "</tool_call>";
/** Text after <tool_call> within which the call's head (`{"name": "…", "arguments": `) must be complete (names are short). */
const MAX_CALL_HEAD = 1024;
const TOOL_HEAD = /^\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"arguments"\s*:\s*/;

interface OpenToolCall {
  index: number;
  id: string;
  name: string | null;
  /** Before the name: everything after <tool_call>. After it: the arguments text not sent yet (what may be the end). */
  raw: string;
  /** The arguments text already sent, in pieces (joined once, when the call closes). */
  sent: string[];
}

/** The JSON string literal's body decoded, or null when it is none (a raw control character, a bad escape: no call). */
function jsonString(body: string): string | null {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return null;
  }
}

export class OutputParser extends MarkupParser {
  private mode: "start" | "reasoning" | "content" | "tool" | "block";
  private atReasoningStart = false;
  private atContentStart = true;
  /** Edges trimmed (the fork's SGLang), else kept as written. */
  private readonly trim: boolean;
  /** The content now starting loses its leading whitespace (trimmed edges, or the text after a tool call). */
  private trimContentStart: boolean;
  /** The tags that end reasoning: </think>, and <tool_call> where it ends it too. */
  private readonly reasoningEnds: readonly string[];
  private openCall: OpenToolCall | null = null;
  /** The answer's first character has come (a format's startOpens count only before it). */
  private answerStarted = false;
  /** The reader of the format's unit in progress, while one is open and the format streams. */
  private unitReader: UnitReader | null = null;
  /** The format's unit in progress (block mode): the text since its open. */
  private block: GrowingText | null = null;

  constructor(private readonly options: OutputParserOptions) {
    super();
    this.trim = options.edges !== "kept";
    this.trimContentStart = this.trimsContent;
    this.reasoningEnds = options.toolCallEndsReasoning ? [THINK_CLOSE, TOOL_OPEN] : [THINK_CLOSE];
    this.mode = options.reasoning && options.startInReasoning ? "reasoning" : "start";
    if (this.mode === "reasoning") {
      this.reasoningSeen = true;
      this.atReasoningStart = true;
    }
  }

  /** End of output: flushes what was held back (an unclosed tool call becomes content). */
  finish(matchedStop?: string | null): OutputDelta[] {
    // the unit in progress, or the open call's unsent text, back into the pending text (read again as it was)
    const openCall = this.mode === "tool" ? this.openCall : null;
    this.unread(this.block?.text() ?? openCall?.raw ?? "", matchedStop);
    this.block = null;
    if (openCall) openCall.raw = "";
    const deltas = this.drain(true);
    if (this.mode === "tool" && this.openCall) {
      const call = this.openCall;
      this.openCall = null;
      this.mode = "content";
      if (call.name === null) deltas.push(...this.content(TOOL_OPEN + call.raw, true));
      else deltas.push(...this.closeToolCall(call, call.raw));
    }
    return deltas;
  }

  protected get state(): unknown {
    return this.mode;
  }

  protected step(final: boolean): OutputDelta[] {
    if (this.mode === "start") return this.stepStart(final);
    if (this.mode === "reasoning") return this.stepReasoning(final);
    if (this.mode === "content") return this.options.toolFormat && this.options.toolCalls ? this.stepContentBlocks(this.options.toolFormat, final) : this.stepContent(final);
    if (this.mode === "block") return this.stepBlock(this.options.toolFormat!, final);
    return this.stepTool(final);
  }

  /** Whether the content's edges are trimmed: under trimmed edges, only with a reasoning parser (the fork's SGLang strips them there). */
  private get trimsContent(): boolean {
    return this.trim && this.options.reasoning;
  }

  private stepStart(final: boolean): OutputDelta[] {
    const trimmed = this.pending.replace(/^\s+/, "");
    if (this.options.reasoning && trimmed.startsWith(THINK_OPEN)) {
      this.pending = trimmed.slice(THINK_OPEN.length);
      this.mode = "reasoning";
      this.reasoningSeen = true;
      this.atReasoningStart = true;
      return [];
    }
    if (!final && this.options.reasoning && THINK_OPEN.startsWith(trimmed)) return []; // maybe "<thi"
    this.mode = "content";
    return [];
  }

  private stepReasoning(final: boolean): OutputDelta[] {
    if (this.atReasoningStart) {
      // a <think> the model writes itself where the output starts inside reasoning, and repeated ones: markers, not reasoning
      this.pending = this.pending.replace(this.trim ? /^(?:\s*<think>)*\s*/ : /^(?:<think>)*/, "");
      if (!final && (this.pending.length === 0 || THINK_OPEN.startsWith(this.pending))) return [];
      this.atReasoningStart = false;
    }
    let end = -1;
    let endTag = "";
    for (const tag of this.reasoningEnds) {
      const at = this.pending.indexOf(tag);
      if (at >= 0 && (end < 0 || at < end)) [end, endTag] = [at, tag];
    }
    if (end >= 0) {
      const text = this.pending.slice(0, end);
      // (</think> is dropped; a <tool_call> that ends the reasoning opens the answer)
      this.pending = this.pending.slice(endTag === THINK_CLOSE ? end + THINK_CLOSE.length : end);
      this.mode = "content";
      this.atContentStart = true;
      this.trimContentStart = this.trim;
      return this.emitReasoning(this.trim ? text.replace(/\s+$/, "") : text);
    }
    // at the end, the start of a tag that never came is dropped (an incomplete token, as SGLang's finish() drops it)
    const keep = final ? holdBack(this.pending, this.reasoningEnds, false) : holdBackTagsAndStops(this.pending, this.reasoningEnds, this.options.stop ?? [], this.trim);
    const text = this.pending.slice(0, this.pending.length - keep);
    this.pending = final ? "" : this.pending.slice(text.length);
    return this.emitReasoning(final && this.trim ? text.replace(/\s+$/, "") : text);
  }

  private stepContent(final: boolean): OutputDelta[] {
    const { deltas, opened } = this.scanContent(this.options.toolCalls ? [TOOL_OPEN] : [], true, final);
    if (opened) {
      this.pending = this.pending.slice(TOOL_OPEN.length);
      this.mode = "tool";
      this.openCall = { index: this.calls.length, id: newToolCallId(), name: null, raw: "", sent: [] };
    }
    return deltas;
  }

  /** Content with a family's tool-call markup: up to the first open of it (held back while one may be coming). */
  private stepContentBlocks(format: ToolFormat, final: boolean): OutputDelta[] {
    const startOpens = this.answerStarted ? [] : (format.startOpens ?? []);
    if (startOpens.some((tag) => this.pending.startsWith(tag))) {
      this.mode = "block"; // (before any whitespace: SGLang's llama3 detector reads `{` only as the very first character)
      this.answerStarted = true;
      return [];
    }
    if (!final && startOpens.some((tag) => tag.startsWith(this.pending))) return []; // maybe the start of one
    if (this.pending.length > 0) this.answerStarted = true;
    const { deltas, opened } = this.scanContent(format.opens, format.trimsTextBeforeCall, final);
    if (opened) this.mode = "block";
    return deltas;
  }

  /**
   * Content up to the first of `opens`: the text before it is emitted (its trailing whitespace dropped where
   * `trimBeforeOpen`: the format's SGLang detector strips it) and the pending text then starts at the tag (`opened`);
   * without one, the text that cannot start a tag or a stop string (nor be trailing whitespace that may still be
   * dropped). Leading whitespace is dropped where trimContentStart says, trailing at the end where edges are trimmed.
   */
  private scanContent(opens: readonly string[], trimBeforeOpen: boolean, final: boolean): { deltas: OutputDelta[]; opened: boolean } {
    if (this.atContentStart) {
      if (this.trimContentStart) this.pending = this.pending.replace(/^\s+/, "");
      if (this.pending.length === 0) return { deltas: [], opened: false };
      this.atContentStart = false;
    }
    let open = -1;
    for (const tag of opens) {
      const at = this.pending.indexOf(tag);
      if (at >= 0 && (open < 0 || at < open)) open = at;
    }
    if (open >= 0) {
      const before = this.pending.slice(0, open);
      this.pending = this.pending.slice(open);
      return { deltas: this.content(trimBeforeOpen ? before.replace(/\s+$/, "") : before, false), opened: true };
    }
    const keep = final ? 0 : holdBackTagsAndStops(this.pending, opens, this.options.stop ?? [], this.trimsContent || (trimBeforeOpen && opens.length > 0));
    const text = this.pending.slice(0, this.pending.length - keep);
    this.pending = this.pending.slice(text.length);
    return { deltas: this.content(final && this.trimsContent ? text.replace(/\s+$/, "") : text, false), opened: false };
  }

  /**
   * One unit of a family's tool-call markup: while it is incomplete, the calls its reader finds certain (names, then
   * arguments); once complete (or at the end of the output), its calls settled against what was sent, or content.
   */
  private stepBlock(format: ToolFormat, final: boolean): OutputDelta[] {
    this.block ??= new GrowingText(format.close === null ? [] : [format.close]);
    const close = this.block.append(this.pending);
    this.pending = "";
    if (close.index < 0 && !final) {
      if (!this.block.readDue()) return [];
      this.unitReader ??= format.openUnit(this.options.tools ?? []);
      // (short of what may be a client stop string: the engine ends there, and finish() leaves it out)
      const text = this.block.text();
      return this.streamed.update(this.unitReader.read(text.slice(0, text.length - holdBack(text, this.options.stop ?? [], false, true))));
    }
    const whole = this.block.text();
    const end = close.index < 0 ? whole.length : close.index + close.tag.length;
    const unit = whole.slice(0, end);
    this.pending = whole.slice(end);
    this.block = null;
    this.mode = "content";
    this.atContentStart = true;
    this.trimContentStart = true;
    this.unitReader = null;
    const parsed = format.parse(unit, this.options.tools ?? []);
    // (calls to tools not offered: dropped, as SGLang does; a unit whose calls were started is never content)
    if (parsed === null && !this.streamed.unitStarted) return this.content(unit, true);
    const deltas = this.streamed.settle(parsed?.calls ?? null);
    if (parsed?.after) deltas.push(...this.content(parsed.after, false));
    return deltas;
  }

  private stepTool(final: boolean): OutputDelta[] {
    const call = this.openCall!;
    const close = this.pending.indexOf(TOOL_CLOSE);
    const keep = close >= 0 || final ? 0 : holdBack(this.pending, [TOOL_CLOSE], false);
    const chunk = close >= 0 ? this.pending.slice(0, close) : this.pending.slice(0, this.pending.length - keep);
    call.raw += chunk;
    this.pending = close >= 0 ? this.pending.slice(close + TOOL_CLOSE.length) : this.pending.slice(chunk.length);
    const deltas: OutputDelta[] = [];
    if (call.name === null) {
      const head = TOOL_HEAD.exec(call.raw);
      const name = head ? jsonString(head[1]!) : null;
      if (head && name !== null) {
        call.name = name;
        call.raw = call.raw.slice(head[0].length);
        deltas.push({ kind: "tool-call-start", index: call.index, id: call.id, name: call.name });
      }
    }
    if (call.name === null && close < 0 && call.raw.length > MAX_CALL_HEAD) {
      // no name after this much text (a model looping inside it until max tokens): no call, and its markup is
      // content, as it would be at </tool_call>; the head is searched for in at most this much text on each piece
      this.openCall = null;
      this.mode = "content";
      this.atContentStart = false;
      return [...deltas, ...this.content(TOOL_OPEN + call.raw, true)];
    }
    if (call.name !== null && call.sent.length === 0) call.raw = call.raw.trimStart();
    if (close >= 0) {
      this.openCall = null;
      this.mode = "content";
      this.atContentStart = true;
      this.trimContentStart = true;
      if (call.name === null) return [...deltas, ...this.content(TOOL_OPEN + call.raw + TOOL_CLOSE, true)];
      return [...deltas, ...this.closeToolCall(call, call.raw)];
    }
    if (call.name !== null && !final) {
      // stream argument text, holding back the outer object's closing brace and trailing whitespace: `raw` keeps
      // only what is held back, so each piece costs its own length however long the arguments grow
      // (and what may be a client stop string, which may have begun in the text held back so far)
      const stopKeep = holdBack(call.raw + this.pending, this.options.stop ?? [], false, true) - this.pending.length;
      const safe = call.raw.slice(0, call.raw.length - Math.max(0, stopKeep)).replace(/\s*\}?\s*$/, "").length;
      if (safe > 0) {
        const text = call.raw.slice(0, safe);
        deltas.push({ kind: "tool-call-arguments", index: call.index, text });
        call.sent.push(text);
        call.raw = call.raw.slice(safe);
      }
    }
    return deltas;
  }

  /**
   * The call's end (its </tool_call>, or the output's): the rest of its arguments, short of the outer object's brace
   * and trailing whitespace (the text sent never starts or ends with whitespace, so the record is exactly what was sent).
   */
  private closeToolCall(call: OpenToolCall, raw: string): OutputDelta[] {
    const rest = raw.replace(/\s*\}\s*$/, "").trimEnd();
    const deltas: OutputDelta[] = [];
    if (rest.length > 0) deltas.push({ kind: "tool-call-arguments", index: call.index, text: rest });
    this.calls.push({ id: call.id, type: "function", function: { name: call.name ?? "", arguments: call.sent.join("") + rest } });
    return deltas;
  }

  /** Content; unless `verbatim` (markup that parsed as no call), text that ends the content's start. */
  private content(text: string, verbatim: boolean): OutputDelta[] {
    if (text.length > 0 && !verbatim) this.atContentStart = false;
    return this.emitContent(text);
  }
}
