// POST /v1/chat/completions of the stand-in (the passthrough mode's engine): renders the chat template, generates
// through the same engine as /generate, reads the output with the proxy's own parser (as the fork's SGLang serving
// Qwen3 reads it) and answers whole or as SGLang's chat SSE (sglang-streaming.md §6).
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { chatRequestSchema, type ChatRequest } from "../../contracts/chat.ts";
import { FAMILIES } from "../../lib/model/model-family.ts";
import { createAnswerParser, endsInsideReasoning, type AnswerParser } from "../../lib/model/parsers/answer-parser.ts";
import type { OutputDelta } from "../../lib/model/parsers/output-delta.ts";
import type { FinishReason, StandinGeneration } from "./generation.ts";
import { endSse, sendError, sendJson, startSse, writeSse, zodMessage } from "./http.ts";
import { topRow } from "../model/responder.ts";
import type { StandinRouteContext } from "./route-context.ts";

interface ChatContext {
  server: StandinRouteContext;
  request: ChatRequest;
  id: string;
  created: number;
  model: string;
  /** Reads this request's output (fed the text as it grows). */
  parser: AnswerParser;
}

/** SGLang's parsers for the stand-in's model (Qwen3's), read as the recipe's default flavour (fork) reads them. */
const QWEN3_PARSERS = FAMILIES.find((family) => family.name === "qwen3")!.sglang;

export async function handleChatCompletions(server: StandinRouteContext, body: unknown, response: ServerResponse): Promise<void> {
  const parsed = chatRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(response, 400, zodMessage(parsed.error));
  const template = server.options.chatTemplate;
  if (!template) return sendError(response, 501, "this stand-in has no chat template; pass chatTemplate to StandinRouteContext");
  const request = parsed.data;
  const prompt = template.render(request.messages, { tools: request.tools ?? null, addGenerationPrompt: true });
  const inputIds = await server.tokenizer.encode(prompt);
  const stop = request.stop === null || request.stop === undefined ? undefined : typeof request.stop === "string" ? [request.stop] : request.stop;
  const { parser } = createAnswerParser({ parsers: QWEN3_PARSERS, tools: request.tools ?? [], toolChoice: request.tool_choice, stop, startsInReasoning: endsInsideReasoning(prompt), flavor: "fork" });
  const context: ChatContext = { server, request, id: `chatcmpl-${randomBytes(16).toString("hex")}`, created: Math.floor(Date.now() / 1000), model: request.model ?? server.servedModelName(), parser };
  const samplingParams: Record<string, unknown> = {
    temperature: request.temperature ?? 1,
    top_p: request.top_p ?? 1,
    max_new_tokens: request.max_completion_tokens ?? request.max_tokens ?? 4096,
    ...(stop ? { stop } : {}),
  };
  if (request.stream) startSse(response);
  const prepared = await server.admit(inputIds, samplingParams, context.id);
  response.on("close", () => {
    if (!response.writableFinished) prepared.generation.requestAbort();
  });
  if (!request.stream) {
    for await (const _ of server.run(prepared)) {
      // answered once at the finish
    }
    return sendJson(response, 200, wholeAnswer(context, prepared.generation));
  }
  await streamAnswer(context, server.run(prepared), response);
}

function logprobContent(context: ChatContext, ids: readonly number[], logprobs: readonly number[]): unknown[] {
  const tokenizer = context.server.tokenizer;
  const k = context.request.top_logprobs ?? 0;
  const entry = (id: number, logprob: number) => {
    const token = tokenizer.decode([id], { skipSpecialTokens: false });
    return { token, bytes: [...Buffer.from(token, "utf8")], logprob };
  };
  return ids.map((id, index) => {
    const logprob = logprobs[index] ?? 0;
    return { ...entry(id, logprob), top_logprobs: topRow(id, logprob, k).map(([value, top]) => entry(top, value)) };
  });
}

function finishName(reason: FinishReason | null, parser: AnswerParser): { finish: string | null; matched: number | string | null } {
  if (reason === null) return { finish: null, matched: null };
  if (reason.type === "stop") return { finish: parser.hasToolCalls ? "tool_calls" : "stop", matched: reason.matched };
  return { finish: reason.type, matched: null };
}

/**
 * Feeds the parser what the generation's text added since `fed`; at the finish, flushes it. A matched stop string is
 * trimmed from the text but may have begun in what was fed (the parser held it back): it is fed whole, then dropped.
 */
function read(context: ChatContext, generation: StandinGeneration, fed: string): { deltas: OutputDelta[]; fed: string } {
  const reason = generation.finishReason;
  const matched = reason?.type === "stop" && typeof reason.matched === "string" ? reason.matched : null;
  const text = generation.text() + (matched ?? "");
  const deltas = text.startsWith(fed) ? context.parser.push(text.slice(fed.length)) : [];
  if (reason !== null) deltas.push(...context.parser.finish(matched));
  return { deltas, fed: text.startsWith(fed) ? text : fed };
}

function usage(generation: StandinGeneration): Record<string, unknown> {
  const completion = generation.outputIds.length;
  return { prompt_tokens: generation.inputIds.length, total_tokens: generation.inputIds.length + completion, completion_tokens: completion, prompt_tokens_details: null, reasoning_tokens: 0 };
}

function wholeAnswer(context: ChatContext, generation: StandinGeneration): unknown {
  read(context, generation, "");
  const message = context.parser.message();
  const { finish, matched } = finishName(generation.finishReason, context.parser);
  const toolCalls = message.tool_calls?.map((call, index) => ({ ...call, index })) ?? null;
  return {
    id: context.id,
    object: "chat.completion",
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: message.content, reasoning_content: message.reasoning_content ?? null, tool_calls: toolCalls },
        logprobs: context.request.logprobs ? { content: logprobContent(context, generation.outputIds, generation.outputLogprobs) } : null,
        finish_reason: finish,
        matched_stop: matched,
      },
    ],
    usage: usage(generation),
    metadata: { weight_version: context.server.state.weightVersion },
  };
}

async function streamAnswer(context: ChatContext, steps: AsyncGenerator<StandinGeneration>, response: ServerResponse): Promise<void> {
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    id: context.id,
    object: "chat.completion.chunk",
    created: context.created,
    model: context.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null, matched_stop: null, ...extra }],
  });
  writeSse(response, chunk({ reasoning_content: null, role: "assistant", content: "" }));
  let fed = "";
  let sentLogprobs = 0;
  let last: StandinGeneration | null = null;
  for await (const generation of steps) {
    last = generation;
    const step = read(context, generation, fed);
    fed = step.fed;
    const pending = context.request.logprobs ? logprobContent(context, generation.outputIds.slice(sentLogprobs), generation.outputLogprobs.slice(sentLogprobs)) : [];
    const pieces = step.deltas.map((delta) => ({ delta: chatDelta(delta) }));
    pieces.forEach((piece, index) => {
      const logprobs = index === 0 && pending.length > 0 ? { content: pending } : null;
      writeSse(response, chunk(piece.delta, { logprobs }));
    });
    if (pieces.length > 0) sentLogprobs = generation.outputIds.length; // log-probs of a step without text ride on the next chunk with text; the last ones may never go (SGLang quirk)
  }
  if (last) {
    const { finish, matched } = finishName(last.finishReason, context.parser);
    writeSse(response, chunk({ reasoning_content: null }, { finish_reason: finish, matched_stop: matched }));
    if (context.request.stream_options?.include_usage) writeSse(response, { id: context.id, object: "chat.completion.chunk", created: context.created, model: context.model, choices: [], usage: usage(last) });
  }
  endSse(response);
}

/** One parser delta as SGLang's chat SSE delta. */
function chatDelta(delta: OutputDelta): Record<string, unknown> {
  const call = { role: null, content: null, reasoning_content: null };
  if (delta.kind === "reasoning") return { reasoning_content: delta.text };
  if (delta.kind === "content") return { reasoning_content: null, content: delta.text };
  if (delta.kind === "tool-call-start") return { ...call, tool_calls: [{ id: delta.id, index: delta.index, type: "function", function: { name: delta.name, arguments: "" } }] };
  return { ...call, tool_calls: [{ id: null, index: delta.index, type: "function", function: { name: null, arguments: delta.text } }] };
}
