// gpt-oss's harmony output, parsed incrementally as SGLang's gpt-oss reasoning parser and tool detector read it
// (tests/fixtures/sglang/parser-formats.md §7): messages `[<|start|>assistant]<|channel|>CHANNEL[ to=RECIPIENT]
// [ <|constrain|>json]<|message|>BODY END`; analysis → reasoning, final and preambles (commentary without a
// recipient) and messages without a channel (a tool's answer) → content, text outside messages → content (as SGLang's
// canonical strategy keeps it, less a "commentary" filler after <|call|> and stray structural tokens), commentary
// to=functions.NAME with <|constrain|>json ended by <|call|> → a tool call, started
// once its header names a tool the request offers and its body shows a JSON object (a first key, or `{}`), then its
// arguments streamed as json-prefix.ts finds them certain (SGLang sends each harmony call complete; streamed-calls.ts
// settles the call at <|call|>). The decoded text must keep the special tokens.
import type { Tool } from "../../../contracts/chat.ts";
import { MarkupParser } from "./markup-parser.ts";
import type { OutputDelta } from "./output-delta.ts";
import { GrowingText } from "./growing-text.ts";
import { holdBackTagsAndStops } from "./tag-holdback.ts";
import { JsonPrefix } from "./tool-formats/json-prefix.ts";
import { pythonArguments } from "./tool-formats/tool-format.ts";

const START = "<|start|>";
const CHANNEL = "<|channel|>";
const MESSAGE = "<|message|>";
const ENDS = ["<|end|>", "<|call|>", "<|return|>"] as const;
/** The tokens SGLang's canonical strategy reads as structure (held back while one may be starting; dropped when stray). */
const GUARDS = [START, CHANNEL, MESSAGE, "<|constrain|>", ...ENDS];
const STRAY_GUARD = /<\|(?:start|channel|message|constrain|end|call|return)\|>/g;
const RECIPIENT = /to=([a-zA-Z_][a-zA-Z0-9_.-]*)/;

export interface HarmonyParserOptions {
  /** Tool calls parsed (tools sent, tool_choice not "none"); otherwise a call's body is dropped as SGLang drops unparsed tool blocks. */
  toolCalls: boolean;
  tools?: readonly Tool[];
  /** Client stop strings: held back from reasoning and content while they may still match (the engine stops at them). */
  stop?: readonly string[];
}

interface Header {
  channel: string;
  recipient: string | null;
  json: boolean;
}

export class HarmonyParser extends MarkupParser {
  /** The open message's header once its <|message|> has come; null between messages. */
  private header: Header | null = null;
  /** The open message's tool call: the tool's name and its arguments read so far; null for other messages. */
  private call: { name: string; body: JsonPrefix } | null = null;
  /** The open message's body while it does not stream as text (a call, or a message that is dropped). */
  private gathered: GrowingText | null = null;
  /** The last message ended with <|call|> (a "commentary" filler the model may write next is no content). */
  private afterCall = false;

  constructor(private readonly options: HarmonyParserOptions) {
    super();
  }

  finish(matchedStop?: string | null): OutputDelta[] {
    // the body in progress back into the pending text, where a matched stop string ends
    this.unread(this.gathered?.text() ?? "", matchedStop);
    this.gathered = null;
    return this.drain(true);
  }

  /** Whether a message is open (its header read). */
  protected get state(): unknown {
    return this.header !== null;
  }

  protected step(final: boolean): OutputDelta[] {
    return this.header ? this.body(this.header, final) : this.head(final);
  }

  /**
   * Between messages: the text before the next header (content, as SGLang's canonical strategy keeps it), then the
   * header up to its <|message|>. The role header (`<|start|>assistant to=…`) before the channel may name the
   * recipient too; a message without a channel (`<|start|>functions.NAME to=assistant<|message|>`) is content.
   */
  private head(final: boolean): OutputDelta[] {
    const starts = [this.pending.indexOf(START), this.pending.indexOf(CHANNEL)].filter((at) => at >= 0);
    const open = starts.length > 0 ? Math.min(...starts) : -1;
    if (open !== 0) return this.outside(open < 0 ? this.pending.length : open, open < 0 && !final);
    const message = this.pending.indexOf(MESSAGE);
    if (message < 0) {
      if (final) this.pending = ""; // (a header cut short: no message)
      return [];
    }
    const header = this.pending.slice(0, message);
    const channel = header.indexOf(CHANNEL);
    const role = channel < 0 ? header : header.slice(0, channel);
    const spec = channel < 0 ? "" : header.slice(channel + CHANNEL.length);
    const recipient = RECIPIENT.exec(spec)?.[1] ?? RECIPIENT.exec(role)?.[1] ?? null;
    this.header = { channel: channel < 0 ? "" : (spec.trim().split(/[\s<]/)[0] ?? ""), recipient, json: spec.includes("<|constrain|>json") };
    this.pending = this.pending.slice(message + MESSAGE.length);
    this.afterCall = false;
    const name = this.calledTool(this.header);
    this.call = name === null ? null : { name, body: new JsonPrefix() };
    return [];
  }

  /**
   * Text outside messages, up to `end`: content, without stray structural tokens and without a "commentary" filler
   * right after <|call|> (held back whole until what follows shows it); `streaming`: hold back what may start a token.
   */
  private outside(end: number, streaming: boolean): OutputDelta[] {
    let keep = streaming ? holdBackTagsAndStops(this.pending.slice(0, end), GUARDS, this.options.stop ?? [], false) : 0;
    if (streaming && this.afterCall) keep = end; // (what follows a call shows whether it is the filler)
    const text = this.pending.slice(0, end - keep);
    this.pending = this.pending.slice(text.length);
    if (text.length === 0) return [];
    const filler = this.afterCall && text.trim().toLowerCase() === "commentary";
    this.afterCall = false;
    return this.emitContent(filler ? "" : text.replace(STRAY_GUARD, ""));
  }

  /** The tool a message calls, when it is a call this parser reads: JSON to a recipient whose last segment is an offered tool. */
  private calledTool(header: Header): string | null {
    if (!this.options.toolCalls || !header.json || header.recipient === null || streams(header)) return null;
    const name = header.recipient.split(".").at(-1)!;
    return (this.options.tools ?? []).some((tool) => tool.function.name === name) ? name : null;
  }

  private body(header: Header, final: boolean): OutputDelta[] {
    if (!streams(header)) return this.gatheredBody(final);
    let end = -1;
    let endToken = "";
    for (const token of ENDS) {
      const at = this.pending.indexOf(token);
      if (at >= 0 && (end < 0 || at < end)) [end, endToken] = [at, token];
    }
    if (end < 0 && !final) {
      // stream the body, holding back what could be the start of an end token or a client stop string (reasoning
      // too: the engine ends the output at one, and finish() leaves it out)
      const keep = holdBackTagsAndStops(this.pending, ENDS, this.options.stop ?? [], false);
      const text = this.pending.slice(0, this.pending.length - keep);
      this.pending = this.pending.slice(text.length);
      return this.emit(header, text);
    }
    const text = end < 0 ? this.pending : this.pending.slice(0, end);
    this.pending = end < 0 ? "" : this.pending.slice(end + endToken.length);
    this.header = null;
    this.afterCall = endToken === "<|call|>";
    return this.emit(header, text);
  }

  /**
   * A message whose body does not stream as text (a call, or one that is dropped), gathered up to its end token; a
   * call's arguments stream meanwhile, what is certain of them short of what may start an end token.
   */
  private gatheredBody(final: boolean): OutputDelta[] {
    this.gathered ??= new GrowingText(ENDS);
    const end = this.gathered.append(this.pending);
    this.pending = "";
    if (end.index < 0 && !final) {
      if (!this.call || !this.gathered.readDue()) return [];
      const text = this.gathered.text();
      // (short of what may start an end token or be a client stop string: the engine ends there, finish() leaves it out)
      const keep = holdBackTagsAndStops(text, ENDS, this.options.stop ?? [], false);
      const args = this.call.body.extend(text.slice(0, text.length - keep));
      return this.call.body.shown ? this.streamed.update([{ name: this.call.name, arguments: args, closed: false }]) : [];
    }
    const whole = this.gathered.text();
    this.gathered = null;
    this.pending = end.index < 0 ? "" : whole.slice(end.index + end.tag.length);
    this.header = null;
    this.afterCall = end.tag === "<|call|>";
    return this.toolCall(end.index < 0 ? whole : whole.slice(0, end.index), end.tag === "<|call|>" || end.index < 0);
  }

  private emit(header: Header, text: string): OutputDelta[] {
    if (text.length === 0) return [];
    if (!header.channel.startsWith("analysis")) return this.emitContent(text);
    this.reasoningSeen = true;
    return this.emitReasoning(text);
  }

  /** A message to a recipient, ended: a tool call when it is one this parser reads and ended by <|call|>, else dropped (unless started). */
  private toolCall(body: string, called: boolean): OutputDelta[] {
    const call = this.call;
    this.call = null;
    if (call === null) return [];
    const args = !called ? null : body.trim().length === 0 ? "{}" : pythonArguments(body.trim());
    return this.streamed.settle(args === null ? null : [{ name: call.name, arguments: args }]);
  }
}

/** Messages whose body streams as text: analysis (reasoning), final, preambles and channel-less messages (content). */
function streams(header: Header): boolean {
  return header.channel === "" || header.channel.startsWith("analysis") || header.channel.startsWith("final") || (header.channel.startsWith("commentary") && header.recipient === null);
}
