// How one API answers a turn: a responder gets the turn's parsed deltas as they are generated and its end (or
// failure), and writes them as that API's stream events or whole body; the API's error shape. Ignores generation.
import type { ServerResponse } from "node:http";
import type { CapturedTurn } from "../../contracts/turn.ts";
import type { OpenAiLogprob } from "../generation/openai-logprobs.ts";
import type { OutputDelta } from "../../lib/model/parsers/output-delta.ts";
import type { OpenAiError } from "./openai-errors.ts";

/** Token counts of a finished turn. */
export interface TurnUsage {
  promptTokens: number;
  completionTokens: number;
}

/** What a responder is told when the turn's answer is complete. */
export interface TurnEnd {
  captured: CapturedTurn;
  usage: TurnUsage;
  /** The stop string the generation ended on (a stop sequence the client asked for), else null. */
  matchedStop: string | null;
  weightVersion: string | null;
}

export interface TurnResponder {
  /** Whether anything (headers, an opening event) went out yet. */
  readonly isStarted: boolean;
  /** The engine accepted the request: a stream sends its headers and opening events. */
  start(): void;
  /** Log-prob entries of the tokens just generated (only for requests that asked for them). */
  logprobs(entries: readonly OpenAiLogprob[]): void;
  deltas(deltas: readonly OutputDelta[]): void;
  finish(end: TurnEnd): void;
  /** A failure: the error in the API's shape, as the HTTP answer when nothing went out yet, else as a stream event. */
  fail(error: OpenAiError): void;
}

export interface ResponderOptions {
  response: ServerResponse;
  model: string;
  sessionId: string;
  stream: boolean;
  startedAt: number;
  /** The prompt's length in tokens (known before the first token; the Messages API's message_start reports it). */
  promptTokens: number;
}

/** One API the proxy speaks: its error shape and its responder. */
export interface ApiDialect {
  sendError(response: ServerResponse, error: OpenAiError, extraHeaders?: Record<string, string>): void;
  responder(options: ResponderOptions): TurnResponder;
}
