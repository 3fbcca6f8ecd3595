// OpenAI-shaped error bodies ({"error":{"message","type","param","code"}}) and the mapping from our typed
// errors to HTTP statuses. Ignores routing and SSE.
import type { ServerResponse } from "node:http";
import { isOpenclawRlError } from "../../contracts/errors.ts";
import { EngineStatusError } from "../../lib/sglang/engine-errors.ts";
import { sendJson } from "../../lib/http/send-json.ts";

export { sendJson };

export interface OpenAiError {
  status: number;
  message: string;
  type: string;
  param: string | null;
  code: string | null;
  retryAfterS?: number;
}

export function openAiError(status: number, message: string, options: { type?: string; param?: string | null; code?: string | null; retryAfterS?: number } = {}): OpenAiError {
  const type = options.type ?? (status === 401 ? "authentication_error" : status >= 500 ? "server_error" : "invalid_request_error");
  return { status, message, type, param: options.param ?? null, code: options.code ?? null, retryAfterS: options.retryAfterS };
}

/**
 * 503 while the supervisor's traffic gate is closed. The reason names what is not ready (the policy, the judge, the
 * slime job, ...), so the message claims nothing about which engine it is.
 */
export function enginesNotReady(readiness: { reason: string; retryAfterS: number }): OpenAiError {
  return openAiError(503, `the engines are not ready: ${readiness.reason}`, { type: "server_error", code: "engine_unavailable", retryAfterS: readiness.retryAfterS });
}

/** The engine refused the request as invalid (a value it checks and the proxy hands on): a 400, the client's to fix. */
export function engineRejected(reason: string): OpenAiError {
  return openAiError(400, `the policy engine refused the request: ${reason}`, { code: "engine_rejected" });
}

export function errorBody(error: OpenAiError): { error: { message: string; type: string; param: string | null; code: string | null } } {
  return { error: { message: error.message, type: error.type, param: error.param, code: error.code } };
}

/** Maps anything thrown while serving a request to an OpenAI error (engine problems: 502 / 503). */
export function toOpenAiError(error: unknown): OpenAiError {
  if (error instanceof EngineStatusError && error.status === 503) {
    return openAiError(503, `the policy engine is unavailable: ${error.message}`, { type: "server_error", code: "engine_unavailable", retryAfterS: 5 });
  }
  // an invalid request (SGLang checks sampling values and content the proxy hands on) is the client's to fix
  if (error instanceof EngineStatusError && (error.status === 400 || error.status === 422)) return engineRejected(error.reason);
  if (isOpenclawRlError(error)) {
    switch (error.code) {
      case "BAD_REQUEST":
      case "TEMPLATE_ERROR":
        return openAiError(400, error.message, { param: error.path ?? null, code: error.code.toLowerCase() });
      case "UNAUTHORIZED":
        return openAiError(401, error.message, { code: "invalid_api_key" });
      case "ENGINE_UNAVAILABLE":
        return openAiError(503, `the policy engine is unavailable: ${error.message}`, { type: "server_error", code: "engine_unavailable", retryAfterS: 5 });
      case "TIMEOUT":
        return openAiError(504, error.message, { code: "timeout" });
      case "ENGINE_ERROR":
        return openAiError(502, `the policy engine failed: ${error.message}`, { code: "engine_error" });
      default:
        return openAiError(500, error.message, { code: error.code.toLowerCase() });
    }
  }
  if (error instanceof Error && error.name === "TimeoutError") {
    return openAiError(504, "the request took longer than proxy.request_timeout_s", { type: "server_error", code: "timeout" });
  }
  if (error instanceof Error && error.name === "AbortError") return openAiError(499, "the request was cancelled", { code: "cancelled" });
  const message = error instanceof Error ? error.message : String(error);
  return openAiError(502, `the policy engine failed: ${message}`, { code: "engine_error" });
}


export function sendError(response: ServerResponse, error: OpenAiError, extraHeaders: Record<string, string> = {}): void {
  const headers: Record<string, string> = { ...extraHeaders };
  if (error.retryAfterS !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterS)));
  if (error.status === 401) headers["www-authenticate"] = "Bearer";
  sendJson(response, error.status, errorBody(error), headers);
}
