// The errors an SGLang engine answers with: an HTTP (or mid-stream) status kept as EngineStatusError, whether a
// status is worth another try (the one rule, for every engine call), and the message inside an error body.
import { OpenclawRlError } from "../../contracts/errors.ts";

/**
 * Whether a request refused with this status may succeed when sent again: a timeout (408), too many requests (429),
 * an abort by the engine (499: a pause for a weight update) or a failure on the engine's side (5xx). A request the
 * engine found invalid (400, 422, other 4xx) fails the same way every time.
 */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status === 499 || status >= 500;
}

/** An engine answer with an HTTP (or mid-stream error) status: 499 = the request was aborted (pause for a weight update). */
export class EngineStatusError extends OpenclawRlError {
  readonly status: number;
  /** The engine's own words (the message of its error body), for answers that pass them on to the client. */
  readonly reason: string;
  constructor(status: number, message: string, options: { path?: string; reason?: string } = {}) {
    super("ENGINE_ERROR", message, { path: options.path, retryable: retryableStatus(status) });
    this.status = status;
    this.reason = options.reason ?? message;
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
