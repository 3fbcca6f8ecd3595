// One chat completion in tokens mode: build the prompt, generate from token ids (continuing across weight updates),
// stream parsed deltas, capture the turn token-exactly. The turn's life around it is turn-lifecycle.ts's.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ChatRequest } from "../../contracts/chat.ts";
import type { CapturedTurn, FinishReason } from "../../contracts/turn.ts";
import { Generation } from "../capture/generation.ts";
import { OpenAiLogprobs, type OpenAiLogprob } from "../capture/openai-logprobs.ts";
import { parserNames } from "../../lib/model/model-family.ts";
import { reasoningFor, toolFormatFor } from "../capture/tool-formats/tool-formats.ts";
import { HarmonyParser } from "../capture/harmony-parser.ts";
import { OutputParser } from "../capture/output-parser.ts";
import { mapSampling } from "../capture/sampling-params.ts";
import { TokenTextStream } from "../capture/token-text-stream.ts";
import { enginesNotReady, openAiError, sendError, sendJson, toOpenAiError, type OpenAiError } from "./openai-errors.ts";
import type { ProxyContext } from "./proxy-context.ts";
import { ChunkWriter } from "./sse-writer.ts";
import { beginTurn, ClientGone, emitTurnEnd, finishTurn, prepareTurn, requestSignal, turnFinishReason, turnOrigin } from "./turn-lifecycle.ts";

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
  const parsers = deps.parsers ?? parserNames(recipe.model, null);
  const toolFormat = parsers.toolCallParser === null ? null : toolFormatFor(parsers.toolCallParser);
  const reasoning = parsers.reasoningParser === null ? null : reasoningFor(parsers.reasoningParser);
  const parseTools = toolFormat !== null && (body.tools?.length ?? 0) > 0 && body.tool_choice !== "none";
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
  // gpt-oss writes harmony channels in special tokens: its own parser, and text that keeps them
  const harmony = toolFormat === "harmony" || parsers.reasoningParser === "gpt-oss";
  const parser = harmony
    ? new HarmonyParser({ toolCalls: parseTools, tools: body.tools ?? [], stop: sampling.stop })
    : new OutputParser({
        reasoning: reasoning !== null,
        startInReasoning: prompt.startsInReasoning || reasoning?.forced === true,
        toolCalls: parseTools,
        ...(typeof toolFormat === "object" && toolFormat !== null ? { toolFormat, tools: body.tools ?? [] } : {}),
        stop: sampling.stop,
      });
  const text = new TokenTextStream(deps.tokenizer, { keepSpecialTokens: harmony });
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
    finishReason = turnFinishReason(result.finish, parser.hasToolCalls, false);
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
  if (decision.turnType === "main") void context.prompts.warmReply(captured.response);
}

/** The request becomes a turn of its session (a main turn closes the session's previous one); counted and announced. */
