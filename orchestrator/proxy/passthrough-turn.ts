// One chat completion in passthrough mode (models whose parsers we do not support): forwards to SGLang's
// /v1/chat/completions with logprobs, relays the answer as the client asked, and captures an approximate
// turn by re-tokenizing the response text. Ignores token-exact generation.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AssistantMessage, ChatRequest, ToolCall } from "../../contracts/chat.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { CapturedTurn } from "../../contracts/turn.ts";
import { sseEvents } from "../../lib/http/sse-events.ts";
import { assistantText } from "../prompt/assistant-text.ts";
import { CLIENT_SAMPLING_KEYS, drawnValues, turnSampling } from "../generation/sampling-params.ts";
import { enginesNotReady, openAiError, sendError, toOpenAiError } from "./openai-errors.ts";
import type { ClientSignals } from "../sessions/turn-decision.ts";
import { beginTurn, emitTurnEnd, finishTurn, prepareTurn, requestSignal, turnFinishReason, turnOrigin } from "./turn-lifecycle.ts";
import type { ProxyContext } from "./proxy-context.ts";

interface Collected {
  content: string;
  reasoning: string | null;
  toolCalls: ToolCall[];
  logProbs: { logprob: number; token?: string }[];
  finish: string | null;
  weightVersion: string | null;
}

/** `client`: what the request's client says of its conversation and side requests (Qwen Code's, on this route). */
export async function servePassthroughTurn(context: ProxyContext, request: IncomingMessage, response: ServerResponse, body: ChatRequest, client?: ClientSignals): Promise<void> {
  const { deps } = context;
  const prepared = prepareTurn(context, body, request.headers, client);
  const { decision } = prepared;
  const readiness = deps.readiness();
  if (!readiness.ready) {
    return sendError(response, enginesNotReady(readiness));
  }
  const { session_id: _session, turn_type: _type, session_done: _done, ...forwarded } = body;
  // the engine's chat endpoint is handed the sampling the turn is drawn with (main turns: the trainer's), nothing else
  const sampling = turnSampling(body, deps.recipe, decision.turnType);
  const unsampled = Object.fromEntries(Object.entries(forwarded).filter(([key]) => !(CLIENT_SAMPLING_KEYS as readonly string[]).includes(key)));
  const upstreamBody = { ...unsampled, ...drawnValues(sampling), model: body.model ?? deps.recipe.model.served_name, logprobs: true };
  const startedAt = Date.now();
  let upstream: AsyncIterable<string>;
  try {
    upstream = await deps.policy.chatCompletions(upstreamBody, { signal: requestSignal(context, response) });
  } catch (error) {
    return sendError(response, toOpenAiError(error));
  }
  // the proxy asks for log-probs to capture the turn; a client that did not ask gets none
  const relay = body.logprobs === true ? (event: string) => event : withoutLogprobs;

  const turn = beginTurn(context, decision, body.messages);
  const collected: Collected = { content: "", reasoning: null, toolCalls: [], logProbs: [], finish: null, weightVersion: null };
  let firstTokenAt: number | null = null;
  let failed = false;
  try {
    if (body.stream === true) {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-session-id": decision.sessionId });
      for await (const event of sseEvents(upstream)) {
        firstTokenAt ??= Date.now();
        const data = event.data === null || event.data === "[DONE]" || event.data.length === 0 ? null : event.data;
        if (data !== null) collectChunk(collected, data);
        // a data event goes out with its payload relayed; anything else (a comment, [DONE]) as it came
        response.write(data === null ? `${event.raw}\n\n` : `data: ${relay(data)}\n\n`);
      }
      response.end();
    } else {
      let text = "";
      for await (const part of upstream) text += part;
      firstTokenAt = Date.now();
      collectWhole(collected, text);
      response.writeHead(200, { "content-type": "application/json", "x-session-id": decision.sessionId });
      response.end(relay(text));
    }
  } catch (error) {
    failed = true;
    if (!response.headersSent) sendError(response, openAiError(502, `the policy engine failed: ${(error as Error).message}`, { code: "engine_error" }));
    else response.end();
  }
  if (collected.weightVersion) context.deps.versions?.observe(collected.weightVersion);
  const captured = { ...(await approximateTurn(context, body, decision, turn, collected, failed, startedAt, firstTokenAt)), sampling };
  emitTurnEnd(context, decision, captured, { weightVersions: collected.weightVersion ? [collected.weightVersion] : [], continuedAfterAbort: 0 }, request.headers["user-agent"]);
  finishTurn(context, prepared, captured);
}

async function approximateTurn(
  context: ProxyContext,
  body: ChatRequest,
  decision: ReturnType<typeof prepareTurn>["decision"],
  turn: number,
  collected: Collected,
  failed: boolean,
  startedAt: number,
  firstTokenAt: number | null,
): Promise<CapturedTurn> {
  const prompt = await context.prompts.buildRequest(body, null, decision.sessionId);
  const response: AssistantMessage = { role: "assistant", content: collected.toolCalls.length > 0 && collected.content === "" ? null : collected.content };
  if (collected.reasoning !== null) response.reasoning_content = collected.reasoning;
  if (collected.toolCalls.length > 0) response.tool_calls = collected.toolCalls;
  // what the model generated, as the chat template writes an assistant turn (re-tokenized, like the reference): Qwen's
  // markup written here; other families' by their own template (the conversation's render past the prompt's)
  const qwenMarkup = (context.deps.parsers?.toolCallParser ?? "qwen") === "qwen";
  const calls = collected.toolCalls.map((call) => `<tool_call>\n{"name": ${JSON.stringify(call.function.name)}, "arguments": ${call.function.arguments}}\n</tool_call>`);
  const generated =
    (qwenMarkup ? null : assistantText(context.deps.template, body.messages, body.tools ?? null, body.chat_template_kwargs ?? undefined, response)) ??
    (collected.reasoning !== null && !prompt.startsInReasoning ? "<think>\n" : "") +
      // (reasoning without its edge newlines, as Qwen3's template writes it: `reasoning_content.strip('\n')`)
      (collected.reasoning !== null ? `${collected.reasoning.replace(/^\n+|\n+$/g, "")}\n</think>\n\n` : "") +
      [collected.content, ...calls].filter((part) => part.length > 0).join("\n") +
      "<|im_end|>";
  const responseIds = await context.prompts.encode(generated);
  const aligned = alignLogProbs(responseIds, collected.logProbs, (id) => context.deps.tokenizer.tokenText(id));
  const finish = turnFinishReason(collected.finish, collected.toolCalls.length > 0, failed);
  return {
    ...turnOrigin(decision, turn, body),
    promptIds: prompt.ids,
    responseIds,
    responseLogProbs: aligned.logProbs,
    ...(aligned.missing.length > 0 ? { missingLogProbs: aligned.missing } : {}),
    response,
    finishReason: finish,
    weightVersions: [{ version: collected.weightVersion ?? "unknown", start: 0, end: responseIds.length }],
    approximate: true,
    startedAt,
    firstTokenAt,
    endedAt: Date.now(),
  };
}

/** A chat completion or chunk (JSON) with each choice's logprobs set to null; text that is not JSON as it is. */
function withoutLogprobs(json: string): string {
  let value: { choices?: { logprobs?: unknown }[] };
  try {
    value = JSON.parse(json) as typeof value;
  } catch {
    return json;
  }
  if (!Array.isArray(value.choices) || !value.choices.some((choice) => choice.logprobs)) return json;
  for (const choice of value.choices) if (choice && typeof choice === "object" && "logprobs" in choice) choice.logprobs = null;
  return JSON.stringify(value);
}

interface ChoiceLike {
  delta?: ChoiceMessage;
  message?: ChoiceMessage;
  finish_reason?: string | null;
  logprobs?: { content?: { logprob: number; token?: string }[] | null } | null;
}
interface ChoiceMessage {
  content?: string | null;
  reasoning_content?: string | null;
  tool_calls?: { index?: number; id?: string | null; function?: { name?: string | null; arguments?: string | null } }[] | null;
}

function collectChunk(collected: Collected, data: string): void {
  let value: { choices?: ChoiceLike[]; metadata?: { weight_version?: unknown } };
  try {
    value = JSON.parse(data) as typeof value;
  } catch {
    return;
  }
  collectChoice(collected, value.choices?.[0], value.metadata);
}

function collectWhole(collected: Collected, text: string): void {
  let value: { choices?: ChoiceLike[]; metadata?: { weight_version?: unknown } };
  try {
    value = JSON.parse(text) as typeof value;
  } catch (cause) {
    throw new OpenclawRlError("ENGINE_ERROR", "non-JSON chat completion from the policy engine", { cause });
  }
  collectChoice(collected, value.choices?.[0], value.metadata);
}

function collectChoice(collected: Collected, choice: ChoiceLike | undefined, metadata: { weight_version?: unknown } | undefined): void {
  if (metadata?.weight_version !== undefined && metadata.weight_version !== null) collected.weightVersion = String(metadata.weight_version);
  if (!choice) return;
  const message = choice.delta ?? choice.message;
  if (message?.content) collected.content += message.content;
  if (message?.reasoning_content) collected.reasoning = (collected.reasoning ?? "") + message.reasoning_content;
  for (const [position, call] of (message?.tool_calls ?? []).entries()) {
    const index = call.index ?? position;
    const existing = collected.toolCalls[index] ?? (collected.toolCalls[index] = { id: call.id ?? `call_${index}`, type: "function", function: { name: "", arguments: "" } });
    if (call.id) existing.id = call.id;
    if (call.function?.name) existing.function.name += call.function.name;
    if (call.function?.arguments) existing.function.arguments += call.function.arguments;
  }
  for (const entry of choice.logprobs?.content ?? []) {
    if (typeof entry.logprob === "number" && Number.isFinite(entry.logprob)) collected.logProbs.push({ logprob: entry.logprob, ...(typeof entry.token === "string" ? { token: entry.token } : {}) });
    else collected.logProbs.push({ logprob: Number.NaN }); // kept in place, so later entries keep their positions
  }
  if (choice.finish_reason) collected.finish = choice.finish_reason;
}

/**
 * The engine's chat log-prob entries laid over the re-tokenized response by position. An entry counts only where its
 * token text (when it has one) is the text of the re-tokenized id there; every other position, and any position past
 * the entries (SGLang's chat stream sends none for a last step with empty text, such as EOS), gets a 0 placeholder
 * and is listed in `missing`, so the sample leaves it out of the loss rather than train on a made-up value.
 */
export function alignLogProbs(
  responseIds: readonly number[],
  entries: readonly { logprob: number; token?: string }[],
  pieceOf: (id: number) => string,
): { logProbs: number[]; missing: number[] } {
  const logProbs: number[] = [];
  const missing: number[] = [];
  responseIds.forEach((id, index) => {
    const entry = entries[index];
    const matches = entry !== undefined && Number.isFinite(entry.logprob) && (entry.token === undefined || entry.token === pieceOf(id));
    logProbs.push(matches ? entry.logprob : 0);
    if (!matches) missing.push(index);
  });
  return { logProbs, missing };
}
