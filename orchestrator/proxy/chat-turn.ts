// One chat completion in tokens mode: decide session and turn type, build the prompt, generate (continuing
// across weight updates), stream parsed deltas, then hand the captured turn to the session tracker.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ChatRequest } from "../../contracts/chat.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { TURN_RECORD_VERSION, type CapturedTurn, type FinishReason } from "../../contracts/turn.ts";
import { CallSignal } from "../../lib/http/call-signal.ts";
import { Generation } from "../capture/generation.ts";
import { OpenAiLogprobs, type OpenAiLogprob } from "../capture/openai-logprobs.ts";
import { OutputParser } from "../capture/output-parser.ts";
import { mapSampling } from "../capture/sampling-params.ts";
import { TokenTextStream } from "../capture/token-text-stream.ts";
import { stableHistory } from "../sessions/message-digest.ts";
import { decideTurn, type Decision } from "../sessions/turn-decision.ts";
import { enginesNotReady, openAiError, sendError, sendJson, toOpenAiError, type OpenAiError } from "./openai-errors.ts";
import type { ProxyContext } from "./proxy-context.ts";
import { ChunkWriter } from "./sse-writer.ts";

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
export function prepareTurn(context: ProxyContext, body: ChatRequest, headers: IncomingMessage["headers"]): PreparedTurn {
  const stable = stableHistory(body.messages);
  const digests = stable.map((message) => context.digests.ofSharing(message));
  const prefixes = context.digests.prefixes(digests);
  const decision = decideTurn(body, headers, prefixes, context.deps.recipe.proxy, context.sessions, context.newSessionId);
  return { decision, stable, digests, prefixes };
}

/** Why a request is aborted when its client goes away first (an agent's stop button): a turn that ends "abort", not an error. */
class ClientGone extends OpenclawRlError {
  constructor() {
    super("BAD_REQUEST", "client disconnected");
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
export function unsupportedInTokensMode(body: ChatRequest): OpenAiError | null {
  const refuse = (param: string, message: string, code: string): OpenAiError =>
    openAiError(400, `${param}: ${message} (proxy.mode tokens; proxy.mode passthrough hands it to the engine's own chat endpoint)`, { param, code });
  for (const [index, message] of body.messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [position, part] of message.content.entries()) {
      if (part.type !== "text") return refuse(`messages.${index}.content.${position}`, `${JSON.stringify(part.type)} parts are not supported: the prompt is rendered as text`, "unsupported_content");
    }
  }
  const choice = body.tool_choice;
  if (choice === "required" || (typeof choice === "object" && choice !== null)) {
    return refuse("tool_choice", `${choice === "required" ? '"required"' : "a named function"} is not supported: the proxy does not force a tool call; send "auto" and the model calls tools when it decides to`, "unsupported_tool_choice");
  }
  const format = body.response_format?.type;
  if (format === "json_object" || format === "json_schema") {
    return refuse("response_format", `${JSON.stringify(format)} is not supported: the proxy does not constrain output to JSON; ask for JSON in the prompt`, "unsupported_response_format");
  }
  return null;
}

/** `raw` is the request body the chat request was parsed from; it is handed to a prompt worker (not used after). */
export async function serveTokensTurn(context: ProxyContext, request: IncomingMessage, response: ServerResponse, body: ChatRequest, raw: Buffer | null): Promise<void> {
  const { deps } = context;
  const recipe = deps.recipe;
  const unsupported = unsupportedInTokensMode(body);
  if (unsupported) return sendError(response, unsupported);
  const prepared = prepareTurn(context, body, request.headers);
  const { decision } = prepared;
  const parseTools = recipe.model.tool_call_parser === "qwen25" && (body.tools?.length ?? 0) > 0 && body.tool_choice !== "none";
  const prompt = await context.prompts.buildRequest(body, raw, decision.sessionId);
  const sampling = mapSampling(body, recipe, prompt.ids.length);
  const readiness = deps.readiness();
  if (!readiness.ready) {
    sendError(response, enginesNotReady(readiness));
    return;
  }

  // From here on the request changes state: the previous turn of the session closes.
  const startedAt = Date.now();
  const turn = beginTurn(context, decision, body.messages);

  const model = body.model ?? recipe.model.served_name;
  // 24 hex characters from a v4 UUID (Node draws those from a pooled random buffer: no getrandom call per request)
  const completionId = `chatcmpl-${randomUUID().replaceAll("-", "").slice(0, 24)}`;
  const stream = body.stream === true;
  const writer = stream ? new ChunkWriter(response, completionId, model, { "x-session-id": decision.sessionId }) : null;
  const parser = new OutputParser({
    reasoning: recipe.model.reasoning_parser === "qwen3",
    startInReasoning: prompt.startsInReasoning,
    toolCalls: parseTools,
    stop: sampling.stop,
  });
  const text = new TokenTextStream(deps.tokenizer);
  const logprobs = body.logprobs === true ? new OpenAiLogprobs(deps.tokenizer) : null;
  const wholeLogprobs: OpenAiLogprob[] = []; // non-stream answers: every entry, in the message's choice
  const generation = new Generation(deps.policy, {
    promptIds: prompt.ids,
    promptIdsJsonParts: prompt.idsJsonParts,
    sampling: sampling.params,
    maxNewTokens: sampling.maxNewTokens,
    signal: requestSignal(context, response),
    // headers and the role chunk go out once the engine accepted the request (it may be paused for a weight
    // sync); a refused connection before that still gets a 503
    onAccepted: () => writer?.start(),
    topLogprobs: logprobs ? (body.top_logprobs ?? 0) : 0,
  });

  let firstTokenAt: number | null = null;
  let finishReason: FinishReason = "abort";
  let failure: unknown = null;
  try {
    const run = generation.run();
    let step = await run.next();
    while (!step.done) {
      firstTokenAt ??= Date.now();
      context.deps.versions?.observe(step.value.version);
      if (logprobs) {
        const entries = logprobs.of(step.value);
        if (writer) writer.logprobs(entries);
        else for (const entry of entries) wholeLogprobs.push(entry);
      }
      const deltas = parser.push(text.push(step.value.ids)); // (not inside writer?.…: that would skip it)
      writer?.deltas(deltas);
      step = await run.next();
    }
    const result = step.value;
    const tail = [...parser.push(text.flush()), ...parser.finish(typeof result.matched === "string" ? result.matched : null)];
    writer?.deltas(tail);
    finishReason = result.finish === "stop" ? (parser.hasToolCalls ? "tool_calls" : "stop") : result.finish;
  } catch (error) {
    failure = error;
  }

  const endedAt = Date.now();
  const captured: CapturedTurn = {
    ...turnOrigin(decision, turn, body),
    promptIds: prompt.ids,
    responseIds: generation.ids,
    responseLogProbs: generation.logProbs,
    response: parser.message(),
    finishReason: failure ? "abort" : finishReason,
    weightVersions: generation.weightVersions,
    approximate: false,
    startedAt,
    firstTokenAt,
    endedAt,
  };
  const bookkeeping = (): void => {
    emitTurnEnd(context, decision, captured, {
      weightVersions: [...new Set(generation.weightVersions.map((span) => span.version))],
      continuedAfterAbort: generation.continuedAfterAbort,
    });
    finishTurn(context, prepared, captured);
  };

  if (failure || captured.finishReason === "abort") {
    bookkeeping();
    const error = failure ? toOpenAiError(failure) : openAiError(502, "the policy engine aborted the generation and it could not be continued", { code: "engine_aborted" });
    // (a client that left is no error: its turn-end event already says "abort")
    if (!(failure instanceof ClientGone)) deps.bus.emit({ type: "error", source: "proxy", code: error.code ?? "engine_error", message: error.message });
    // (a stream the engine never accepted has sent nothing yet: it gets the HTTP status, 503 + Retry-After included)
    if (writer?.isStarted) writer.fail(error);
    else sendError(response, error);
    return;
  }
  // The answer goes out first, then the turn's bookkeeping, in the same tick: the client has its reply a little sooner
  // (digests, events), and its next request still finds the session's turn completed.
  const usage = { prompt_tokens: prompt.ids.length, completion_tokens: generation.ids.length, total_tokens: prompt.ids.length + generation.ids.length };
  if (writer) writer.finish(captured.finishReason, body.stream_options?.include_usage ? usage : null);
  else {
    sendJson(
      response,
      200,
      {
        id: completionId,
        object: "chat.completion",
        created: Math.floor(startedAt / 1000),
        model,
        choices: [{ index: 0, message: captured.response, logprobs: logprobs ? { content: wholeLogprobs } : null, finish_reason: captured.finishReason }],
        usage,
        metadata: { weight_version: generation.weightVersions.at(-1)?.version ?? null, session_id: decision.sessionId },
      },
      { "x-session-id": decision.sessionId },
    );
  }
  bookkeeping();
  // the reply's segments, for the session's next prompt (in a prompt worker, while the user reads or a tool runs)
  if (decision.turnType === "main") void context.prompts.warmReply(captured.response, decision.sessionId);
}

/** The request becomes a turn of its session (a main turn closes the session's previous one); counted and announced. */
export function beginTurn(context: ProxyContext, decision: Decision, messages: ChatRequest["messages"]): number {
  const turn = context.sessions.begin(decision.sessionId, decision.turnType, messages);
  context.counters[decision.turnType]++;
  const { session, turnType, reason } = decision.decidedBy;
  context.deps.bus.emit({ type: "turn-start", sessionId: decision.sessionId, turn, turnType: decision.turnType, decidedBy: `${session} / ${turnType}: ${reason}` });
  return turn;
}

/** The fields of a captured turn that come from the request and the session decision. */
export function turnOrigin(decision: Decision, turn: number, body: ChatRequest): Pick<CapturedTurn, "version" | "sessionId" | "turn" | "decidedBy" | "messages" | "tools" | "templateKwargs"> {
  return {
    version: TURN_RECORD_VERSION,
    sessionId: decision.sessionId,
    turn,
    decidedBy: decision.decidedBy,
    messages: body.messages,
    tools: body.tools ?? null,
    templateKwargs: (body.chat_template_kwargs ?? undefined),
  };
}

/** Announces the end of a turn from what it captured, with what only the engine side knows. */
export function emitTurnEnd(context: ProxyContext, decision: Decision, captured: CapturedTurn, engine: { weightVersions: string[]; continuedAfterAbort: number }): void {
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
  });
}

/** A complete main turn becomes the session's open turn; one that could not be completed is only recorded. */
export function finishTurn(context: ProxyContext, prepared: PreparedTurn, captured: CapturedTurn): void {
  const { decision } = prepared;
  if (decision.turnType === "main") {
    if (captured.finishReason === "abort") void context.records.append(captured);
    else context.sessions.complete(captured, prepared.stable, prepared.digests, prepared.prefixes.at(-1) ?? "");
  }
  if (decision.sessionDone) context.sessions.endSession(decision.sessionId);
}
