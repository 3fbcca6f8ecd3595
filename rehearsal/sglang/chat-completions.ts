// POST /v1/chat/completions of the stand-in (the passthrough mode's engine): renders the chat template, generates
// through the same engine as /generate, answers whole or as SGLang's chat SSE (sglang-streaming.md §6).
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { chatRequestSchema, type ChatRequest } from "../../contracts/chat.ts";
import { parseAssistantText, type ParsedAssistant } from "../assistant-text-parser.ts";
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
}

export async function handleChatCompletions(server: StandinRouteContext, body: unknown, response: ServerResponse): Promise<void> {
  const parsed = chatRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(response, 400, zodMessage(parsed.error));
  const template = server.options.chatTemplate;
  if (!template) return sendError(response, 501, "this stand-in has no chat template; pass chatTemplate to StandinRouteContext");
  const request = parsed.data;
  const prompt = template.render(request.messages, { tools: request.tools ?? null, addGenerationPrompt: true });
  const inputIds = await server.tokenizer.encode(prompt);
  const context: ChatContext = { server, request, id: `chatcmpl-${randomBytes(16).toString("hex")}`, created: Math.floor(Date.now() / 1000), model: request.model ?? server.servedModelName() };
  const stop = request.stop === null || request.stop === undefined ? undefined : typeof request.stop === "string" ? [request.stop] : request.stop;
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

function hasTools(request: ChatRequest): boolean {
  return (request.tools?.length ?? 0) > 0 && request.tool_choice !== "none";
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

function finishName(reason: FinishReason | null, parsed: ParsedAssistant): { finish: string | null; matched: number | string | null } {
  if (reason === null) return { finish: null, matched: null };
  if (reason.type === "stop") return { finish: parsed.toolCalls.length > 0 ? "tool_calls" : "stop", matched: reason.matched };
  return { finish: reason.type, matched: null };
}

function usage(generation: StandinGeneration): Record<string, unknown> {
  const completion = generation.outputIds.length;
  return { prompt_tokens: generation.inputIds.length, total_tokens: generation.inputIds.length + completion, completion_tokens: completion, prompt_tokens_details: null, reasoning_tokens: 0 };
}

function toolCallsOf(parsed: ParsedAssistant): unknown[] {
  return parsed.toolCalls.map((call, index) => ({ id: `call_${randomBytes(12).toString("hex")}`, index, type: "function", function: { name: call.name, arguments: call.arguments } }));
}

function wholeAnswer(context: ChatContext, generation: StandinGeneration): unknown {
  const parsed = parseAssistantText(generation.text(), { tools: hasTools(context.request), final: true });
  const { finish, matched } = finishName(generation.finishReason, parsed);
  const toolCalls = parsed.toolCalls.length > 0 ? toolCallsOf(parsed) : null;
  return {
    id: context.id,
    object: "chat.completion",
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: parsed.content.length > 0 || !toolCalls ? parsed.content : null, reasoning_content: parsed.reasoning, tool_calls: toolCalls },
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
  const tools = hasTools(context.request);
  writeSse(response, chunk({ reasoning_content: null, role: "assistant", content: "" }));
  let sentReasoning = 0;
  let sentContent = 0;
  let sentCalls = 0;
  let sentLogprobs = 0;
  let last: StandinGeneration | null = null;
  let parsed: ParsedAssistant = { reasoning: null, content: "", toolCalls: [] };
  for await (const generation of steps) {
    last = generation;
    parsed = parseAssistantText(generation.text(), { tools, final: generation.finishReason !== null });
    const pending = context.request.logprobs ? logprobContent(context, generation.outputIds.slice(sentLogprobs), generation.outputLogprobs.slice(sentLogprobs)) : [];
    const pieces: Array<{ delta: Record<string, unknown> }> = [];
    const reasoning = parsed.reasoning ?? "";
    if (reasoning.length > sentReasoning) pieces.push({ delta: { reasoning_content: reasoning.slice(sentReasoning) } });
    sentReasoning = Math.max(sentReasoning, reasoning.length);
    if (parsed.content.length > sentContent) pieces.push({ delta: { reasoning_content: null, content: parsed.content.slice(sentContent) } });
    sentContent = Math.max(sentContent, parsed.content.length);
    for (const call of toolCallsOf(parsed).slice(sentCalls) as Array<{ id: string; index: number; function: { name: string; arguments: string } }>) {
      const head = { id: call.id, index: call.index, type: "function", function: { name: call.function.name, arguments: "" } };
      pieces.push({ delta: { role: null, content: null, reasoning_content: null, tool_calls: [head] } });
      pieces.push({ delta: { role: null, content: null, reasoning_content: null, tool_calls: [{ id: null, index: call.index, type: "function", function: { name: null, arguments: call.function.arguments } }] } });
    }
    sentCalls = parsed.toolCalls.length;
    pieces.forEach((piece, index) => {
      const logprobs = index === 0 && pending.length > 0 ? { content: pending } : null;
      writeSse(response, chunk(piece.delta, { logprobs }));
    });
    if (pieces.length > 0) sentLogprobs = generation.outputIds.length; // log-probs of a step without text ride on the next chunk with text; the last ones may never go (SGLang quirk)
  }
  if (last) {
    const { finish, matched } = finishName(last.finishReason, parsed);
    writeSse(response, chunk({ reasoning_content: null }, { finish_reason: finish, matched_stop: matched }));
    if (context.request.stream_options?.include_usage) writeSse(response, { id: context.id, object: "chat.completion.chunk", created: context.created, model: context.model, choices: [], usage: usage(last) });
  }
  endSse(response);
}
