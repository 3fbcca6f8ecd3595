// The life of one proxied turn, whatever generates it: session and turn decision, the request signal that ends with the
// client, the turn number, the captured turn's origin, the turn-end event and handing the turn to its session.
// Ignores how the answer is generated (tokens-turn.ts, passthrough-turn.ts).
import { clientLabel } from "./client-label.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ChatRequest } from "../../contracts/chat.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { TURN_RECORD_VERSION, type CapturedTurn, type FinishReason } from "../../contracts/turn.ts";
import { CallSignal } from "../../lib/http/call-signal.ts";
import { stableHistory } from "../sessions/message-digest.ts";
import { decideTurn, type ClientSignals, type Decision } from "../sessions/turn-decision.ts";
import type { ProxyContext } from "./proxy-context.ts";

export interface PreparedTurn {
  decision: Decision;
  stable: ChatRequest["messages"];
  /** Digest of each stable message (reused when the turn completes). */
  digests: string[];
  /** Prefix digest of the stable history up to each message (the last one is reused when the turn completes). */
  prefixes: string[];
}

/**
 * Session + turn type for a parsed request; no state changes (long message texts are swapped for the equal cached
 * instance, see MessageDigests.ofSharing).
 */
export function prepareTurn(context: ProxyContext, body: ChatRequest, headers: IncomingMessage["headers"], client?: ClientSignals): PreparedTurn {
  const stable = stableHistory(body.messages);
  const digests = stable.map((message) => context.digests.ofSharing(message));
  const prefixes = context.digests.prefixes(digests);
  const decision = decideTurn(body, headers, prefixes, context.deps.recipe.proxy, context.sessions, context.newSessionId, client);
  if (decision.episode) {
    if (context.deps.recipe.method === "opd") {
      throw new OpenclawRlError("BAD_REQUEST", "episodes (X-Episode-Id) are trained with step rewards, and method opd has no reward term", { path: "x-episode-id", hint: "run with method binary or combine to train episodes" });
    }
    if (context.episodes.isEnded(decision.episode.id)) {
      throw new OpenclawRlError("BAD_REQUEST", `episode ${decision.episode.id} already reported its outcome; a new episode needs a new X-Episode-Id`, { path: "x-episode-id" });
    }
  }
  return { decision, stable, digests, prefixes };
}

/** Why a request is aborted when its client goes away first (an agent's stop button): a turn that ends "abort", not an error. */
/** The client went away before its answer was complete: its turn ends as aborted, and nothing is reported as an error. */
export class ClientGone extends OpenclawRlError {
  constructor() {
    super("CLIENT_GONE", "client disconnected");
  }
}

/**
 * Aborted when the client goes away, at proxy.request_timeout_s, or when the proxy shuts down (a CallSignal),
 * released when the response closes.
 */
export function requestSignal(context: ProxyContext, response: ServerResponse): AbortSignal {
  const timeoutS = context.deps.recipe.proxy.request_timeout_s;
  const call = new CallSignal(
    timeoutS * 1000,
    () => new OpenclawRlError("TIMEOUT", `the request took longer than proxy.request_timeout_s (${timeoutS} s)`, { path: "proxy.request_timeout_s", retryable: true }),
    context.shutdown,
    (reason) => reason,
  );
  call.unref();
  response.once("close", () => {
    call.dispose();
    if (!response.writableFinished) call.abort(new ClientGone());
  });
  return call.signal;
}

/**
 * What a valid request asks that tokens mode cannot do, as a 400 naming it (else null): content parts other than text
 * (the prompt is rendered and tokenized as text), a forced tool call (`tool_choice` "required" or a named function)
 * and JSON output (`response_format` json_object / json_schema), which both need constrained decoding. Passthrough
 * mode hands all of these to the engine's own chat endpoint.
 */

export function beginTurn(context: ProxyContext, decision: Decision, messages: ChatRequest["messages"]): number {
  const turn = context.sessions.begin(decision.sessionId, decision.turnType, messages);
  if (decision.episode && context.episodes.begin(decision.episode)) {
    context.deps.bus.emit({ type: "episode-start", episodeId: decision.episode.id, groupId: decision.episode.groupId });
  }
  context.counters[decision.turnType]++;
  const { session, turnType, reason } = decision.decidedBy;
  context.deps.bus.emit({ type: "turn-start", sessionId: decision.sessionId, turn, turnType: decision.turnType, decidedBy: `${session} / ${turnType}: ${reason}` });
  return turn;
}

/** The fields of a captured turn that come from the request and the session decision. */
export function turnOrigin(decision: Decision, turn: number, body: ChatRequest): Pick<CapturedTurn, "version" | "sessionId" | "episode" | "turn" | "decidedBy" | "messages" | "tools" | "templateKwargs"> {
  return {
    version: TURN_RECORD_VERSION,
    sessionId: decision.sessionId,
    ...(decision.episode ? { episode: decision.episode } : {}),
    turn,
    decidedBy: decision.decidedBy,
    messages: body.messages,
    tools: body.tools ?? null,
    templateKwargs: (body.chat_template_kwargs ?? undefined),
  };
}

/** Announces the end of a turn from what it captured, with what only the engine side knows. */
export function emitTurnEnd(context: ProxyContext, decision: Decision, captured: CapturedTurn, engine: { weightVersions: string[]; continuedAfterAbort: number }, userAgent: string | undefined): void {
  const asked = captured.sampling?.clientAsked ?? {};
  context.deps.bus.emit({
    type: "turn-end",
    sessionId: decision.sessionId,
    turn: captured.turn,
    turnType: decision.turnType,
    finishReason: captured.finishReason,
    promptTokens: captured.promptIds.length,
    responseTokens: captured.responseIds.length,
    ttftMs: captured.firstTokenAt === null ? null : captured.firstTokenAt - captured.startedAt,
    totalMs: captured.endedAt - captured.startedAt,
    ...engine,
    client: clientLabel(userAgent),
    ...(Object.keys(asked).length > 0 ? { samplingAsked: asked } : {}),
    ...(captured.sampling && !captured.sampling.onPolicy ? { offPolicy: true } : {}),
  });
}

/** A complete main turn becomes the session's open turn; one that could not be completed is only recorded. */
export function finishTurn(context: ProxyContext, prepared: PreparedTurn, captured: CapturedTurn): void {
  const { decision } = prepared;
  if (decision.episode) {
    const completed = decision.turnType === "main" && captured.finishReason !== "abort";
    context.episodes.finish(decision.episode, completed, captured.weightVersions.at(-1)?.version ?? null);
  }
  if (decision.turnType === "main") {
    if (captured.finishReason === "abort") void context.records.append(captured);
    else context.sessions.complete(captured, prepared.stable, prepared.digests, prepared.prefixes.at(-1) ?? "");
  }
  if (decision.sessionDone) context.sessions.endSession(decision.sessionId);
}

/**
 * The turn's finish reason from the engine's (tokens mode: stop / length / abort; passthrough: OpenAI's, or none when
 * the stream broke): a failed or aborted generation is "abort", one cut at the limit "length", a complete answer with
 * tool calls "tool_calls", else "stop".
 */
export function turnFinishReason(engineFinish: string | null, hasToolCalls: boolean, failed: boolean): FinishReason {
  if (failed || engineFinish === "abort") return "abort";
  if (engineFinish === "length") return "length";
  return hasToolCalls || engineFinish === "tool_calls" ? "tool_calls" : "stop";
}
