// Reads a request body with a size limit (413 past it) and parses the chat request with zod (400 naming the
// problem). Ignores sessions and generation.
import type { IncomingMessage } from "node:http";
import { chatRequestSchema, type ChatRequest } from "../../contracts/chat.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { openAiError, type OpenAiError } from "./openai-errors.ts";

/**
 * The whole body, or a 413 past maxBytes. Event-driven (an async iterator costs a promise per network chunk), and
 * copied once into a buffer of the declared size when there is a Content-Length.
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | OpenAiError> {
  const declared = Number(request.headers["content-length"]);
  const tooLarge = (): OpenAiError => openAiError(413, `request body larger than proxy.max_body_bytes (${maxBytes} bytes)`, { code: "body_too_large" });
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    return Promise.resolve(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const sized = Number.isInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > maxBytes) {
        request.off("data", onData).off("end", onEnd);
        request.resume();
        return resolve(tooLarge());
      }
      if (sized && size + chunk.length <= sized.length) chunk.copy(sized, size);
      else chunks.push(chunk);
      size += chunk.length;
    };
    const onEnd = (): void => {
      if (sized && size === sized.length && chunks.length === 0) return resolve(sized);
      // a body shorter or longer than declared (Node's parser normally refuses those): join what came
      resolve(Buffer.concat([...(sized ? [sized.subarray(0, Math.min(size, sized.length))] : []), ...chunks]));
    };
    const onClose = (): void => {
      if (!request.complete) reject(new OpenclawRlError("BAD_REQUEST", "the client closed the connection before the body was complete"));
    };
    request.on("data", onData).once("end", onEnd).once("error", reject).once("close", onClose);
  });
}

export function parseJson(body: Buffer): unknown | OpenAiError {
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch (error) {
    return openAiError(400, `request body is not valid JSON: ${(error as Error).message}`, { code: "invalid_json" });
  }
}

export function parseChatRequest(value: unknown): ChatRequest | OpenAiError {
  const parsed = chatRequestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.path.map(String).join(".");
    return openAiError(400, `${param || "body"}: ${issue.message}`, { param: param || null, code: "invalid_request" });
  }
  if (parsed.data.n !== undefined && parsed.data.n !== null && parsed.data.n !== 1) {
    return openAiError(400, `n: only n = 1 is supported (got ${parsed.data.n})`, { param: "n", code: "unsupported_n" });
  }
  if ((parsed.data.top_logprobs ?? 0) > 0 && parsed.data.logprobs !== true) {
    return openAiError(400, "top_logprobs: set logprobs to true to use top_logprobs", { param: "top_logprobs", code: "invalid_request" });
  }
  return parsed.data;
}

export function isOpenAiError(value: unknown): value is OpenAiError {
  return typeof value === "object" && value !== null && "status" in value && "type" in value && "message" in value && !Buffer.isBuffer(value);
}
