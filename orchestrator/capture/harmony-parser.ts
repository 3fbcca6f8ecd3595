// gpt-oss's harmony output, parsed incrementally as SGLang's gpt-oss reasoning parser and tool detector read it
// (tests/fixtures/sglang/parser-formats.md §7): messages `[<|start|>assistant]<|channel|>CHANNEL[ to=RECIPIENT]
// [ <|constrain|>json]<|message|>BODY END`; analysis → reasoning, final and preambles (commentary without a
// recipient) → content, commentary to=functions.NAME with <|constrain|>json ended by <|call|> → a tool call, sent
// whole (SGLang sends each harmony call complete). The decoded text must keep the special tokens.
import type { AssistantMessage, Tool, ToolCall } from "../../contracts/chat.ts";
import { answerMessage, holdBack, wholeToolCall, type OutputDelta } from "./output-parser.ts";
import { pythonArguments } from "./tool-formats/tool-format.ts";

const START = "<|start|>";
const CHANNEL = "<|channel|>";
const MESSAGE = "<|message|>";
const ENDS = ["<|end|>", "<|call|>", "<|return|>"] as const;
const RECIPIENT = /to=([a-zA-Z_][a-zA-Z0-9_.-]*)/;

export interface HarmonyParserOptions {
  /** Tool calls parsed (tools sent, tool_choice not "none"); otherwise a call's body is dropped as SGLang drops unparsed tool blocks. */
  toolCalls: boolean;
  tools?: readonly Tool[];
  /** Client stop strings: held back from content while they may still match (the engine stops at them). */
  stop?: readonly string[];
}

interface Header {
  channel: string;
  recipient: string | null;
  json: boolean;
}

export class HarmonyParser {
  private pending = "";
  /** The open message's header once its <|message|> has come; null between messages. */
  private header: Header | null = null;
  private reasoningText = "";
  private contentText = "";
  private reasoningSeen = false;
  private readonly calls: ToolCall[] = [];

  constructor(private readonly options: HarmonyParserOptions) {}

  push(text: string): OutputDelta[] {
    this.pending += text;
    return this.drain(false);
  }

  /** End of output: flushes what was held back, without a client stop string the engine matched (sent because of no_stop_trim). */
  finish(matchedStop?: string | null): OutputDelta[] {
    if (matchedStop && this.pending.endsWith(matchedStop)) this.pending = this.pending.slice(0, -matchedStop.length);
    return this.drain(true);
  }

  get hasToolCalls(): boolean {
    return this.calls.length > 0;
  }

  message(): AssistantMessage {
    return answerMessage(this.contentText, this.reasoningSeen ? this.reasoningText : null, this.calls);
  }

  private drain(final: boolean): OutputDelta[] {
    const deltas: OutputDelta[] = [];
    for (let guard = 0; guard < 10_000; guard++) {
      const before = this.pending.length;
      const open = this.header !== null;
      deltas.push(...(this.header ? this.body(this.header, final) : this.head(final)));
      if (this.pending.length === before && (this.header !== null) === open) break;
    }
    return deltas;
  }

  /** Between messages: up to a header's <|message|> (text outside messages is dropped, as SGLang's parser drops it). */
  private head(final: boolean): OutputDelta[] {
    const channel = this.pending.indexOf(CHANNEL);
    if (channel < 0) {
      if (final) this.pending = "";
      return [];
    }
    const message = this.pending.indexOf(MESSAGE, channel);
    if (message < 0) {
      if (final) this.pending = "";
      return [];
    }
    // the role header (`<|start|>assistant to=…`) before the channel may name the recipient too
    const roleStart = this.pending.lastIndexOf(START, channel);
    const role = roleStart >= 0 ? this.pending.slice(roleStart, channel) : "";
    const spec = this.pending.slice(channel + CHANNEL.length, message);
    const recipient = RECIPIENT.exec(spec)?.[1] ?? RECIPIENT.exec(role)?.[1] ?? null;
    this.header = { channel: spec.trim().split(/[\s<]/)[0] ?? "", recipient, json: spec.includes("<|constrain|>json") };
    this.pending = this.pending.slice(message + MESSAGE.length);
    return [];
  }

  private body(header: Header, final: boolean): OutputDelta[] {
    let end = -1;
    let endToken = "";
    for (const token of ENDS) {
      const at = this.pending.indexOf(token);
      if (at >= 0 && (end < 0 || at < end)) [end, endToken] = [at, token];
    }
    const streams = header.channel.startsWith("analysis") || header.channel.startsWith("final") || (header.channel.startsWith("commentary") && header.recipient === null);
    if (end < 0 && !final) {
      if (!streams) return [];
      // stream the body, holding back what could be the start of an end token
      const content = !header.channel.startsWith("analysis");
      const keep = Math.max(holdBack(this.pending, ENDS, false), content ? holdBack(this.pending, this.options.stop ?? [], false, true) : 0);
      const text = this.pending.slice(0, this.pending.length - keep);
      this.pending = this.pending.slice(text.length);
      return this.emit(header, text);
    }
    const text = end < 0 ? this.pending : this.pending.slice(0, end);
    this.pending = end < 0 ? "" : this.pending.slice(end + endToken.length);
    this.header = null;
    if (streams) return this.emit(header, text);
    return this.toolCall(header, text, endToken === "<|call|>" || end < 0);
  }

  private emit(header: Header, text: string): OutputDelta[] {
    if (text.length === 0) return [];
    if (header.channel.startsWith("analysis")) {
      this.reasoningSeen = true;
      this.reasoningText += text;
      return [{ kind: "reasoning", text }];
    }
    this.contentText += text;
    return [{ kind: "content", text }];
  }

  /** A commentary message to a recipient: a tool call when it is `functions.NAME` with a JSON body, else dropped. */
  private toolCall(header: Header, body: string, called: boolean): OutputDelta[] {
    if (!this.options.toolCalls || !called || !header.json || header.recipient === null) return [];
    const name = header.recipient.split(".").at(-1)!;
    if (!(this.options.tools ?? []).some((tool) => tool.function.name === name)) return [];
    const args = body.trim().length === 0 ? "{}" : pythonArguments(body.trim());
    if (args === null) return [];
    return wholeToolCall(this.calls, name, args);
  }
}
