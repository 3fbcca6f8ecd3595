// Reads a request body with a size limit (413 past it) and parses the chat request with zod (400 naming the
// problem). Ignores sessions and generation.
import type { IncomingMessage } from "node:http";
import { chatRequestSchema, type ChatRequest } from "../../contracts/chat.ts";
import { openAiError, type OpenAiError } from "./openai-errors.ts";

export async function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | OpenAiError> {
  const declared = Number(request.headers["content-length"]);
  const tooLarge = (): OpenAiError => openAiError(413, `request body larger than proxy.max_body_bytes (${maxBytes} bytes)`, { code: "body_too_large" });
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    return tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      request.resume();
      return tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
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
  return parsed.data;
}

export function isOpenAiError(value: unknown): value is OpenAiError {
  return typeof value === "object" && value !== null && "status" in value && "type" in value && "message" in value && !Buffer.isBuffer(value);
}
