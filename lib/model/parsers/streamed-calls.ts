// The tool calls of an answer as the client receives them: a call starts (id, name) once a parser is sure of its
// name, its arguments follow as they become certain, and the record holds exactly what was sent. Ignores markup: the
// parsers say what is certain (a ToolFormat's UnitReader, harmony's header and body).
//
// One rule when the final parse disagrees with what was streamed (a repeated JSON key, JSON that turns invalid,
// markup that in the end does not parse): a started call is never taken back. It gets the final arguments' remainder
// when they start with what was sent; otherwise nothing more, and the record keeps the arguments as sent. The unit's
// markup is then not repeated as content. Final calls beyond the started ones are sent whole.
import { randomBytes } from "node:crypto";
import type { ToolCall } from "../../../contracts/chat.ts";
import type { OutputDelta } from "./output-delta.ts";
import type { ParsedToolCall, SeenToolCall } from "./tool-formats/tool-format.ts";

export function newToolCallId(): string {
  return `call_${randomBytes(12).toString("hex")}`;
}

interface StartedCall {
  index: number;
  call: ToolCall; // (its arguments: what was sent)
}

export class StreamedCalls {
  /** The calls of the unit in progress that were started, by their position in the unit. */
  private started: StartedCall[] = [];

  /** `calls`: the answer's record of calls, which this appends to and keeps equal to what was sent. */
  constructor(private readonly calls: ToolCall[]) {}

  /** Whether a call of the unit in progress has been started (its markup must then not become content). */
  get unitStarted(): boolean {
    return this.started.length > 0;
  }

  /** The unit so far: the calls whose names are certain, in order, each with its arguments text certain so far. */
  update(seen: readonly SeenToolCall[]): OutputDelta[] {
    const deltas: OutputDelta[] = [];
    seen.forEach((call, position) => {
      const started = this.started[position] ?? this.start(call.name, deltas);
      if (started.call.function.name === call.name) deltas.push(...this.extend(started, call.arguments, !call.closed));
    });
    return deltas;
  }

  /** The unit's final calls (null: it did not parse), settled by the rule above; the next unit starts afresh. */
  settle(calls: readonly ParsedToolCall[] | null): OutputDelta[] {
    const deltas: OutputDelta[] = [];
    (calls ?? []).forEach((call, position) => {
      const started = this.started[position];
      if (started === undefined) deltas.push(...this.extend(this.start(call.name, deltas), call.arguments));
      else if (started.call.function.name === call.name) deltas.push(...this.extend(started, call.arguments));
    });
    this.started = [];
    return deltas;
  }

  private start(name: string, deltas: OutputDelta[]): StartedCall {
    const started = { index: this.calls.length, call: { id: newToolCallId(), type: "function" as const, function: { name, arguments: "" } } };
    this.calls.push(started.call);
    this.started.push(started);
    deltas.push({ kind: "tool-call-start", index: started.index, id: started.call.id, name });
    return started;
  }

  /**
   * Sends what `args` adds to the arguments sent so far, when it starts with them (`grows`: the reader promises it
   * does, and comparing the whole text on every piece would cost its length each time). The record grows by exactly
   * what is sent.
   */
  private extend(started: StartedCall, args: string, grows = false): OutputDelta[] {
    const sent = started.call.function.arguments;
    if (args.length <= sent.length || (!grows && !args.startsWith(sent))) return [];
    const text = args.slice(sent.length);
    started.call.function.arguments = sent + text;
    return [{ kind: "tool-call-arguments", index: started.index, text }];
  }
}
