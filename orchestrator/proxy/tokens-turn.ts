// One chat completion in tokens mode: build the prompt, generate from token ids (continuing across weight updates),
// stream parsed deltas, capture the turn token-exactly. The turn's life around it is turn-lifecycle.ts's.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ChatRequest } from "../../contracts/chat.ts";
import type { CapturedTurn, FinishReason } from "../../contracts/turn.ts";
import { Generation } from "../generation/generation.ts";
import { OpenAiLogprobs } from "../generation/openai-logprobs.ts";
import { parserNames } from "../../lib/model/model-family.ts";
import { createAnswerParser } from "../../lib/model/parsers/answer-parser.ts";
import { toolChoiceConstraint } from "../generation/tool-choice-constraint.ts";
import { mapSampling } from "../generation/sampling-params.ts";
import { TokenTextStream } from "../generation/token-text-stream.ts";
import type { ClientSignals } from "../sessions/turn-decision.ts";
import { chatCompletionsApi } from "./chat-responder.ts";
import { enginesNotReady, openAiError, toOpenAiError, type OpenAiError } from "./openai-errors.ts";
import type { ProxyContext } from "./proxy-context.ts";
import type { ApiDialect } from "./turn-responder.ts";
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
  const format = body.response_format?.type;
  if (format === "json_object" || format === "json_schema") {
    return refuse("response_format", `${JSON.stringify(format)} is not supported: the proxy does not constrain output to JSON; ask for JSON in the prompt`, "unsupported_response_format");
  }
  return null;
}

/** Which API a turn is answered in, and what its client said about itself (default: chat completions). */
export interface TurnApi {
  api: ApiDialect;
  client?: ClientSignals;
}

/**
 * `raw` is the request body the chat request was parsed from; it is handed to a prompt worker (not used after). A
 * request of another API (Responses, Messages) comes converted to a chat request, with raw null and its own dialect.
 */
export async function serveTokensTurn(
  context: ProxyContext,
  request: IncomingMessage,
  response: ServerResponse,
  body: ChatRequest,
  raw: Buffer | null,
  { api, client }: TurnApi = { api: chatCompletionsApi(body) },
): Promise<void> {
  const { deps } = context;
  const recipe = deps.recipe;
  const unsupported = unsupportedInTokensMode(body);
  if (unsupported) return api.sendError(response, unsupported);
  const prepared = prepareTurn(context, body, request.headers, client);
  const { decision } = prepared;
  const parsers = deps.parsers ?? parserNames(recipe.model, null);
  const prompt = await context.prompts.buildRequest(body, raw, decision.sessionId);
  const sampling = mapSampling(body, recipe, prompt.ids.length, decision.turnType);
  // tool_choice "required" / a named function: the grammar SGLang constrains the output with
  const constraint = toolChoiceConstraint(body, parsers, recipe.engine.slime.flavor, deps.template.reasoningToggle ?? null);
  if (constraint) {
    sampling.params[constraint.grammar.key] = constraint.grammar.value;
    // the grammar masks tokens slime's recomputed log-probs do not: such a turn is not the trainer's distribution
    sampling.sampling = { ...sampling.sampling, onPolicy: false, constrained: `tool_choice ${typeof body.tool_choice === "string" ? body.tool_choice : "named function"}` };
  }
  const readiness = deps.readiness();
  if (!readiness.ready) {
    api.sendError(response, enginesNotReady(readiness));
    return;
  }

  // From here on the request changes state: the previous turn of the session closes.
  const startedAt = Date.now();
  const turn = beginTurn(context, decision, body.messages);

  const model = body.model ?? recipe.model.served_name;
  const responder = api.responder({ response, model, sessionId: decision.sessionId, stream: body.stream === true, startedAt, promptTokens: prompt.ids.length });
  // (gpt-oss's harmony parser reads text that keeps the special tokens)
  const { parser, harmony } = createAnswerParser({ parsers, tools: body.tools ?? [], toolChoice: body.tool_choice, stop: sampling.stop, startsInReasoning: prompt.startsInReasoning, flavor: recipe.engine.slime.flavor });
  const text = new TokenTextStream(deps.tokenizer, { keepSpecialTokens: harmony });
  const logprobs = body.logprobs === true ? new OpenAiLogprobs(deps.tokenizer) : null;
  const generation = new Generation(deps.policy, {
    promptIds: prompt.ids,
    promptIdsJsonParts: prompt.idsJsonParts,
    sampling: sampling.params,
    maxNewTokens: sampling.maxNewTokens,
    signal: requestSignal(context, response),
    // headers and the role chunk go out once the engine accepted the request (it may be paused for a weight
    // sync); a refused connection before that still gets a 503
    onAccepted: () => responder.start(),
    topLogprobs: logprobs ? (body.top_logprobs ?? 0) : 0,
    ...(constraint ? { requireReasoning: constraint.requireReasoning } : {}),
  });

  let firstTokenAt: number | null = null;
  let finishReason: FinishReason = "abort";
  let matchedStop: string | null = null;
  let failure: unknown = null;
  try {
    const run = generation.run();
    let step = await run.next();
    while (!step.done) {
      firstTokenAt ??= Date.now();
      context.deps.versions?.observe(step.value.version);
      if (logprobs) responder.logprobs(logprobs.of(step.value));
      responder.deltas(parser.push(text.push(step.value.ids)));
      step = await run.next();
    }
    const result = step.value;
    matchedStop = typeof result.matched === "string" ? result.matched : null;
    responder.deltas([...parser.push(text.flush()), ...parser.finish(matchedStop)]);
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
    sampling: sampling.sampling,
    startedAt,
    firstTokenAt,
    endedAt,
  };
  const bookkeeping = (): void => {
    emitTurnEnd(context, decision, captured, {
      weightVersions: [...new Set(generation.weightVersions.map((span) => span.version))],
      continuedAfterAbort: generation.continuedAfterAbort,
    }, request.headers["user-agent"]);
    finishTurn(context, prepared, captured);
  };

  if (failure || captured.finishReason === "abort") {
    bookkeeping();
    const error = failure ? toOpenAiError(failure) : openAiError(502, "the policy engine aborted the generation and it could not be continued", { code: "engine_aborted" });
    // (a client that left is no error: its turn-end event already says "abort")
    if (!(failure instanceof ClientGone)) deps.bus.emit({ type: "error", source: "proxy", code: error.code ?? "engine_error", message: error.message });
    responder.fail(error);
    return;
  }
  // The answer goes out first, then the turn's bookkeeping, in the same tick: the client has its reply a little sooner
  // (digests, events), and its next request still finds the session's turn completed.
  const usage = { promptTokens: prompt.ids.length, completionTokens: generation.ids.length };
  responder.finish({ captured, usage, matchedStop, weightVersion: generation.weightVersions.at(-1)?.version ?? null });
  bookkeeping();
  // the reply's segments, for the session's next prompt (in a prompt worker, while the user reads or a tool runs)
  if (decision.turnType === "main") void context.prompts.warmReply(captured.response);
}

/** The request becomes a turn of its session (a main turn closes the session's previous one); counted and announced. */
