// The benches' fake SGLang engine, run as a child: /generate (input ids in, the reply's ids out, streamed or whole,
// incremental or cumulative) and SGLang's OpenAI chat completions, with or without its prompt work, on one timing.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Tokenizer } from "tokenizers";
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { REPLY } from "./openclaw-traffic.ts";

/** The fake engine's timing: a prefix-cached prefill, then one token per step (about what a 4B model does under load). */
export const ENGINE = { prefillMs: 30, tokenMs: 5 };

interface ChatBody {
  stream?: boolean;
  messages: ChatMessage[];
  tools?: Tool[];
}

/** Serves the fake engine on a free loopback port and prints {port} as its first line. */
export async function runEngine(replyIds: number[], cumulative: boolean): Promise<void> {
  const delays = { ...ENGINE };
  const files = await loadTokenizerFiles("builtin:qwen3");
  const template = new ChatTemplate(files);
  const rust = Tokenizer.fromString(JSON.stringify(files.tokenizerJson));
  /** The prompt ids SGLang's chat endpoint computes for a request: jinja render, then one encode of the whole text. */
  const sglangPromptIds = async (parsed: ChatBody): Promise<number[]> => {
    const text = template.renderJinja(parsed.messages, { tools: parsed.tools ?? null, addGenerationPrompt: true });
    return (await rust.encode(text, null, { addSpecialTokens: false })).getIds();
  };
  const sleep = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
  // SGLang with --incremental-streaming-output (what `openclaw-rl plan` configures): a chunk carries only the ids and
  // output log-probs after the previous chunk's; completion_tokens stays cumulative. --cumulative: SGLang's default.
  const chunk = (from: number, count: number, promptTokens: number) => ({
    text: "",
    output_ids: replyIds.slice(from, count),
    meta_info: {
      id: "bench",
      finish_reason: count === replyIds.length ? { type: "stop", matched: replyIds.at(-1) } : null,
      prompt_tokens: promptTokens,
      weight_version: "default",
      completion_tokens: count,
      output_token_logprobs: replyIds.slice(from, count).map((id) => [-0.25, id, null]),
    },
  });
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    for await (const part of request) body += part;
    if (request.url === "/bench/delays") {
      Object.assign(delays, JSON.parse(body));
      return response.end("{}");
    }
    if (request.url === "/v1/chat/completions") return chatCompletion(JSON.parse(body) as ChatBody, response, true);
    if (request.url === "/free/v1/chat/completions") return chatCompletion(JSON.parse(body) as ChatBody, response, false);
    const parsed = JSON.parse(body) as { input_ids: number[]; stream?: boolean };
    const promptTokens = parsed.input_ids.length;
    // token k is due at prefill + (k − 1) · tokenMs after the request arrived, streamed or not (a decode loop runs
    // at its own pace; sleeping tokenMs after each write would add the timer's lateness once per token to streams)
    const arrived = performance.now();
    const due = (count: number) => sleep(arrived + delays.prefillMs + (count - 1) * delays.tokenMs - performance.now());
    if (!parsed.stream) {
      await due(replyIds.length);
      response.writeHead(200, { "content-type": "application/json" });
      return response.end(JSON.stringify(chunk(0, replyIds.length, promptTokens)));
    }
    // SGLang's /generate stream answers 200 with its headers at once, then the body as tokens come
    // (reference/sglang-streaming.md: a paused engine leaves "200 headers and a stalled body")
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.flushHeaders();
    for (let count = 1; count <= replyIds.length; count++) {
      await due(count);
      response.write(`data: ${JSON.stringify(chunk(cumulative ? 0 : count - 1, count, promptTokens))}\n\n`);
    }
    response.end("data: [DONE]\n\n");
  });
  /**
   * SGLang's own OpenAI chat completions (what a plain gateway relays), with the same timing as /generate: a role
   * chunk, one content delta per token (the reply cut into as many pieces as it has tokens), a finish chunk, [DONE].
   * `promptWork`: first what SGLang's serving_chat does with every request before it is scheduled (4ad990ba,
   * python/sglang/srt/entrypoints/openai/serving_chat.py:1303-1323): the chat template rendered through jinja and the
   * whole prompt encoded by Hugging Face's tokenizers, no cache. Without it (`/free/v1/chat/completions`) the
   * endpoint costs nothing before prefill, which no real engine does: what is left is each gateway's own cost.
   */
  async function chatCompletion(parsed: ChatBody, response: ServerResponse, promptWork: boolean): Promise<void> {
    const promptTokens = promptWork ? (await sglangPromptIds(parsed)).length : JSON.stringify(parsed.messages).length >> 2;
    const arrived = performance.now();
    const due = (count: number) => sleep(arrived + delays.prefillMs + (count - 1) * delays.tokenMs - performance.now());
    const pieces = Array.from({ length: replyIds.length }, (_, index) => REPLY.slice(Math.floor((index * REPLY.length) / replyIds.length), Math.floor(((index + 1) * REPLY.length) / replyIds.length)));
    const base = { id: "chatcmpl-bench", object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: "qwen3-4b" };
    const usage = { prompt_tokens: promptTokens, completion_tokens: replyIds.length, total_tokens: promptTokens + replyIds.length };
    if (!parsed.stream) {
      await due(replyIds.length);
      response.writeHead(200, { "content-type": "application/json" });
      return void response.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: REPLY }, finish_reason: "stop" }], usage }));
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.flushHeaders();
    response.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] })}\n\n`);
    for (let count = 1; count <= replyIds.length; count++) {
      await due(count);
      response.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: pieces[count - 1] }, finish_reason: null }] })}\n\n`);
    }
    response.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage })}\n\n`);
    response.end("data: [DONE]\n\n");
  }
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: (server.address() as { port: number }).port })));
}
