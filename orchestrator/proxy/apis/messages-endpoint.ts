// POST /v1/messages: the body parsed, converted to a chat request and served as a tokens-mode turn answered in the
// Anthropic Messages API's shape, errors included. Bad input changes no state.
import type { IncomingMessage, ServerResponse } from "node:http";
import { messagesRequestSchema } from "../../../contracts/messages.ts";
import type { ProxyContext } from "../proxy-context.ts";
import { isOpenAiError, parseBody } from "../request-body.ts";
import { serveTokensTurn } from "../tokens-turn.ts";
import { sendAnthropicError } from "./anthropic-errors.ts";
import { claudeCodeSignals } from "./client-signals.ts";
import { messagesToChat } from "./messages-request.ts";
import { messagesApi } from "./messages-stream.ts";
import { tokensModeOnly } from "./responses-endpoint.ts";
import { unknownModel } from "../unknown-model.ts";
import { mainModelNames } from "../../../lib/model/model-names.ts";

export async function serveMessages(context: ProxyContext, request: IncomingMessage, response: ServerResponse, json: unknown): Promise<void> {
  const body = parseBody(messagesRequestSchema, json);
  if (isOpenAiError(body)) return sendAnthropicError(response, body);
  const notServed = unknownModel(context.deps.recipe, body.model);
  if (notServed) return sendAnthropicError(response, notServed);
  if (context.deps.recipe.proxy.mode !== "tokens") return sendAnthropicError(response, tokensModeOnly("/v1/messages"));
  const chat = messagesToChat(body);
  if (isOpenAiError(chat)) return sendAnthropicError(response, chat);
  const client = claudeCodeSignals(body, chat, mainModelNames(context.deps.recipe));
  return serveTokensTurn(context, request, response, chat, null, { api: messagesApi, client });
}
