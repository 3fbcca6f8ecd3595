// The proxy's errors in the Anthropic Messages API's shape ({type: "error", error: {type, message}}) and statuses:
// an engine that is not ready is 529 overloaded_error, any other server-side failure 500 api_error. Ignores routing.
import type { ServerResponse } from "node:http";
import { sendJson, type OpenAiError } from "../openai-errors.ts";

const TYPES = new Map<number, string>([
  [400, "invalid_request_error"],
  [401, "authentication_error"],
  [403, "permission_error"],
  [404, "not_found_error"],
  [413, "request_too_large"],
  [429, "rate_limit_error"],
  [529, "overloaded_error"],
]);

/** Anthropic's status for one of ours: 503 (not ready, shutting down) → 529; 5xx → 500; client errors stay. */
export function anthropicStatus(status: number): number {
  if (status === 503 || status === 529) return 529;
  if (status >= 500) return 500;
  return TYPES.has(status) || status === 405 ? status : 400;
}

export function anthropicErrorBody(error: OpenAiError): { type: "error"; error: { type: string; message: string } } {
  const status = anthropicStatus(error.status);
  return { type: "error", error: { type: TYPES.get(status) ?? (status >= 500 ? "api_error" : "invalid_request_error"), message: error.message } };
}

export function sendAnthropicError(response: ServerResponse, error: OpenAiError, extraHeaders: Record<string, string> = {}): void {
  const headers: Record<string, string> = { ...extraHeaders };
  if (error.retryAfterS !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterS)));
  sendJson(response, anthropicStatus(error.status), anthropicErrorBody(error), headers);
}
