// The errors an SGLang engine answers with: an HTTP (or mid-stream) status kept as EngineStatusError, and the
// message inside an error body. Ignores whether the call is retried; callers decide with the status.
import { OpenclawRlError } from "../../contracts/errors.ts";

/** An engine answer with an HTTP (or mid-stream error) status: 499 = the request was aborted (pause for a weight update). */
export class EngineStatusError extends OpenclawRlError {
  readonly status: number;
  constructor(status: number, message: string, options: { path?: string; retryable?: boolean } = {}) {
    super("ENGINE_ERROR", message, options);
    this.status = status;
  }
}

/** The message of an engine's error body (OpenAI's `{error: {message}}`, FastAPI's `{detail}`, SGLang's `{message}`), else its start. */
export function engineMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown }; detail?: unknown; message?: unknown };
    const message = body.error?.message ?? body.detail ?? body.message;
    if (message !== undefined && message !== null) return typeof message === "string" ? message : JSON.stringify(message).slice(0, 300);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300) || "(empty body)";
}
