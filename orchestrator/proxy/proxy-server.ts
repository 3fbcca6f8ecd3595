// The OpenAI-compatible proxy: HTTP server, routes, auth and limits, lifecycle (listen / close / stats).
// Turn logic lives in turn-lifecycle.ts, tokens-turn.ts and passthrough-turn.ts; sessions in ../sessions, prompts in
// ../prompt, generation in ../generation, output parsing in lib/model/parsers.
import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism } from "node:os";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { PromptBuilder } from "../prompt/prompt-builder.ts";
import { PromptPool } from "../prompt/prompt-pool.ts";
import { TurnRecords } from "../records/turn-records.ts";
import { readTurnNumbers } from "../records/turn-numbers.ts";
import { MessageDigests } from "../sessions/message-digest.ts";
import { SessionTracker } from "../sessions/session-tracker.ts";
import { assertBindAllowed } from "../../lib/bind-rule.ts";
import { policyTokenizerSource } from "../../lib/model/tokenizer-sources.ts";
import { EpisodeRegistry } from "../episodes/episode-registry.ts";
import { BearerAuth } from "./auth.ts";
import { EPISODE_OUTCOME_PATH, reportEpisodeOutcome } from "./episode-outcome.ts";
import { serveTokensTurn } from "./tokens-turn.ts";
import { chatCompletionsApi } from "./chat-responder.ts";
import { qwenCodeSignals } from "./apis/client-signals.ts";
import { openAiError, sendError, sendJson, toOpenAiError } from "./openai-errors.ts";
import { servePassthroughTurn } from "./passthrough-turn.ts";
import { unknownModel } from "./unknown-model.ts";
import { acceptedModelNames } from "../../lib/model/model-names.ts";
import type { ProxyContext, ProxyDeps } from "./proxy-context.ts";
import { isOpenAiError, parseChatRequest, parseJson, readBody } from "./request-body.ts";
import { listen } from "../../lib/http/listen.ts";
import { sendAnthropicError } from "./apis/anthropic-errors.ts";
import { serveMessages } from "./apis/messages-endpoint.ts";
import { ResponseStore } from "./apis/response-store.ts";
import { serveResponses } from "./apis/responses-endpoint.ts";

/** Responses API answers kept for previous_response_id (each its whole conversation; the oldest go first). */
const STORED_RESPONSES = 256;

export type { ProxyDeps } from "./proxy-context.ts";

export interface Proxy {
  listen(port: number, host: string): Promise<{ host: string; port: number }>;
  close(graceMs?: number): Promise<void>;
  stats(): { sessions: number; turns: { main: number; side: number }; inFlight: number };
}

export function createProxy(deps: ProxyDeps): Proxy {
  const recipe = deps.recipe;
  const records = new TurnRecords(deps.recordsDir, (error) => deps.bus.emit({ type: "error", source: "proxy", code: "INTERNAL", message: error.message }));
  const digests = new MessageDigests();
  const sessions = new SessionTracker({
    digests,
    maxSessions: recipe.proxy.max_sessions,
    idleTimeoutMs: recipe.proxy.session_idle_timeout_s * 1000,
    onTurnClosed: (turn) => {
      // recording and judging run after the current request has gone on to the engine (off its critical path)
      closing.add(turn);
      setImmediate(() => handOn(turn));
    },
  });
  const closing = new Set<ClosedTurn>();
  const handOn = (turn: ClosedTurn): void => {
    if (!closing.delete(turn)) return;
    void records.append(turn);
    deps.bus.emit({ type: "turn-closed", sessionId: turn.sessionId, turn: turn.turn, closedBy: turn.closedBy, nextStateRole: turn.nextState?.role ?? null });
    try {
      deps.onTurnClosed(turn);
    } catch (error) {
      deps.bus.emit({ type: "error", source: "proxy", code: "INTERNAL", message: `onTurnClosed failed: ${(error as Error).message}` });
    }
  };
  const tokenizerSource = policyTokenizerSource(recipe).path;
  const workers = deps.promptWorkers ?? Math.min(4, Math.max(1, availableParallelism() - 2));
  // (a compiled template renders in microseconds: workers only for templates the interpreter renders)
  const pool = workers > 0 && recipe.proxy.mode === "tokens" && !deps.template.isCompiled ? new PromptPool(tokenizerSource, workers) : null;
  const prompts = new PromptBuilder(deps.template, deps.tokenizer, pool, { warmReplies: deps.warmReplies ?? true });
  const shutdown = new AbortController();
  setMaxListeners(0, shutdown.signal); // one listener per request in flight: no "possible leak" warning past 10
  const context: ProxyContext = {
    deps,
    sessions,
    prompts,
    records,
    digests,
    episodes: new EpisodeRegistry(4 * recipe.proxy.max_sessions),
    responses: new ResponseStore(STORED_RESPONSES),
    counters: { main: 0, side: 0, inFlight: 0 },
    shutdown: shutdown.signal,
    newSessionId: () => `session-${randomBytes(8).toString("hex")}`,
  };
  const auth = new BearerAuth(deps.apiKey);
  let accepting = true;
  let idle: (() => void) | null = null;

  const server: Server = createServer((request, response) => {
    context.counters.inFlight++;
    response.on("close", () => {
      context.counters.inFlight--;
      if (context.counters.inFlight === 0) idle?.();
    });
    route(context, auth, accepting, request, response).catch((error: unknown) => {
      if (!response.headersSent) errorsOf(request)(response, toOpenAiError(error));
      else response.end();
    });
  });
  server.keepAliveTimeout = 65_000;

  return {
    async listen(port, host) {
      assertBindAllowed(host, deps.apiKey, recipe.proxy.api_key_env);
      // sessions that go on from an earlier run go on numbering their turns (before the first request is taken)
      const known = await readTurnNumbers(records.file).catch((error: Error) => {
        deps.bus.emit({ type: "error", source: "proxy", code: "INTERNAL", message: `cannot read turn numbers back from ${records.file}: ${error.message}; sessions that go on from an earlier run number their turns from 0 again` });
        return [];
      });
      sessions.knowTurns(known);
      await listen(server, { port, host, key: "proxy.port", hint: "stop the other server or set proxy.port" });
      pool?.start();
      void prompts.verifyPool().then((used) => {
        if (pool && !used) deps.bus.emit({ type: "error", source: "proxy", code: "INTERNAL", message: "prompt workers unavailable or inconsistent; rendering prompts on the main thread" });
      });
      sessions.startSweeping();
      const address = server.address() as AddressInfo;
      return { host: address.address, port: address.port };
    },

    async close(graceMs = 10_000) {
      accepting = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (context.counters.inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      shutdown.abort(new OpenclawRlError("ENGINE_UNAVAILABLE", "the proxy is shutting down", { retryable: true }));
      server.closeAllConnections();
      await closed;
      sessions.stopSweeping();
      sessions.closeAll("shutdown");
      for (const turn of [...closing]) handOn(turn);
      await records.close();
      await prompts.close();
    },

    stats() {
      return { sessions: sessions.size, turns: { main: context.counters.main, side: context.counters.side }, inFlight: context.counters.inFlight };
    },
  };
}

/** The proxy's routes and the method each serves. */
const ROUTES = new Map<string, "GET" | "POST">([
  ["/healthz", "GET"],
  ["/readyz", "GET"],
  ["/v1/models", "GET"],
  ["/v1/chat/completions", "POST"],
  ["/v1/responses", "POST"],
  ["/v1/messages", "POST"],
  ["/v1/feedback", "POST"],
]);

function routePath(request: IncomingMessage): string {
  return new URL(request.url ?? "/", "http://proxy").pathname.replace(/\/+$/, "") || "/";
}

/** The error shape of the API a request speaks: Anthropic's under /v1/messages (count_tokens included: a 404 it reads), OpenAI's elsewhere. */
function errorsOf(request: IncomingMessage): typeof sendError {
  return routePath(request).startsWith("/v1/messages") ? sendAnthropicError : sendError;
}

async function route(context: ProxyContext, auth: BearerAuth, accepting: boolean, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = routePath(request);
  const sendError = errorsOf(request);
  if (!accepting) return sendError(response, openAiError(503, "the proxy is shutting down", { type: "server_error", code: "shutting_down", retryAfterS: 5 }));
  const episodeOutcome = EPISODE_OUTCOME_PATH.exec(path);
  const method = episodeOutcome ? "POST" : ROUTES.get(path);
  if (!method) return sendError(response, openAiError(404, `no route ${request.method} ${path}`, { code: "not_found" }));
  // HEAD wherever GET is served (Node sends the headers without the body); 405 names the method and sets Allow
  const allowed = method === "GET" ? ["GET", "HEAD"] : [method];
  if (!allowed.includes(request.method ?? "")) {
    return sendError(response, openAiError(405, `use ${method} ${path}`, { code: "method_not_allowed" }), { allow: allowed.join(", ") });
  }
  if (path === "/healthz") return sendJson(response, 200, { ok: true });
  if (path === "/readyz") {
    const readiness = context.deps.readiness();
    if (readiness.ready) return sendJson(response, 200, { ready: true, reason: readiness.reason });
    return sendJson(response, 503, { ready: false, reason: readiness.reason }, { "retry-after": String(Math.max(1, Math.ceil(readiness.retryAfterS))) });
  }
  const denied = auth.check(request, path === "/v1/messages");
  if (denied) return sendError(response, openAiError(401, denied, { code: "invalid_api_key" }));

  if (path === "/v1/models") {
    const ids = acceptedModelNames(context.deps.recipe);
    return sendJson(response, 200, { object: "list", data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "openclaw-rl" })) });
  }
  const raw = await readBody(request, context.deps.recipe.proxy.max_body_bytes);
  if (isOpenAiError(raw)) return sendError(response, raw);
  const json = parseJson(raw);
  if (isOpenAiError(json)) return sendError(response, json);

  if (episodeOutcome) {
    let episodeId: string;
    try {
      episodeId = decodeURIComponent(episodeOutcome[1]!);
    } catch {
      return sendError(response, openAiError(400, `the episode id in ${path} is not valid percent-encoding`, { code: "invalid_episode_id" }));
    }
    const answer = reportEpisodeOutcome(context, episodeId, json);
    if (isOpenAiError(answer)) return sendError(response, answer);
    return sendJson(response, answer.status, answer.body);
  }
  if (path === "/v1/feedback") {
    if (!context.deps.onFeedback) return sendError(response, openAiError(404, "feedback is not enabled", { code: "not_found" }));
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    const answer = await context.deps.onFeedback(json, headers);
    return sendJson(response, answer.status, answer.body);
  }
  if (path === "/v1/responses") return serveResponses(context, request, response, json);
  if (path === "/v1/messages") return serveMessages(context, request, response, json);
  const body = parseChatRequest(json);
  if (isOpenAiError(body)) return sendError(response, body);
  const notServed = unknownModel(context.deps.recipe, body.model);
  if (notServed) return sendError(response, notServed);
  const client = qwenCodeSignals(request.headers, body);
  if (context.deps.recipe.proxy.mode === "passthrough") return servePassthroughTurn(context, request, response, body, client);
  return serveTokensTurn(context, request, response, body, raw, { api: chatCompletionsApi(body), client });
}
