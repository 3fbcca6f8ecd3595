// POST /v1/responses: the body parsed, the conversation it goes on from (previous_response_id), converted to a chat
// request and served as a tokens-mode turn answered in the Responses API's shape. Bad input changes no state.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ChatMessage } from "../../../contracts/chat.ts";
import { responsesRequestSchema } from "../../../contracts/responses.ts";
import { openAiError, sendError, type OpenAiError } from "../openai-errors.ts";
import type { ProxyContext } from "../proxy-context.ts";
import { isOpenAiError, parseBody } from "../request-body.ts";
import { serveTokensTurn } from "../tokens-turn.ts";
import { codexSignals } from "./client-signals.ts";
import { responsesToChat } from "./responses-request.ts";
import { responsesApi } from "./responses-stream.ts";
import { unknownModel } from "../unknown-model.ts";

export async function serveResponses(context: ProxyContext, request: IncomingMessage, response: ServerResponse, json: unknown): Promise<void> {
  const body = parseBody(responsesRequestSchema, json);
  if (isOpenAiError(body)) return sendError(response, body);
  const notServed = unknownModel(context.deps.recipe, body.model);
  if (notServed) return sendError(response, notServed);
  if (context.deps.recipe.proxy.mode !== "tokens") return sendError(response, tokensModeOnly("/v1/responses"));
  let previous: readonly ChatMessage[] = [];
  if (body.previous_response_id) {
    const held = context.responses.conversation(body.previous_response_id);
    if (!held) {
      const message = `Previous response with id '${body.previous_response_id}' not found (the proxy holds recent responses in memory only; send the whole input instead)`;
      return sendError(response, openAiError(400, message, { param: "previous_response_id", code: "previous_response_not_found" }));
    }
    previous = held;
  }
  const converted = responsesToChat(body, previous);
  if (isOpenAiError(converted)) return sendError(response, converted);
  const api = responsesApi(body, converted.conversation, context.responses);
  return serveTokensTurn(context, request, response, converted.chat, null, { api, client: codexSignals(request.headers, body, converted.chat) });
}

/** The Responses and Messages APIs are served from token-exact turns: passthrough mode relays the engine's chat endpoint. */
export function tokensModeOnly(route: string): OpenAiError {
  return openAiError(400, `${route} is served in proxy.mode tokens only (proxy.mode passthrough relays the engine's own chat completions); use /v1/chat/completions or set proxy.mode: tokens`, {
    param: "proxy.mode",
    code: "unsupported_in_passthrough",
  });
}
