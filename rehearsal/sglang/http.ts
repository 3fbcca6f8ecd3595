// Small node:http helpers for the stand-in servers: bounded body reading, JSON answers, SGLang-style errors
// and SSE framing. Knows nothing about generation.
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson } from "../../lib/http/send-json.ts";

export { sendJson };

export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function readJsonBody(request: IncomingMessage, limitBytes = 64 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw new HttpProblem(413, `request body larger than ${limitBytes} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim().length === 0) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpProblem(400, "request body is not valid JSON");
  }
}


export function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

/** SGLang's error body: {"error": {"message": ...}}. */
export function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: { message, type: status === 400 ? "BadRequestError" : "Error", code: status } });
}

export function startSse(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  response.flushHeaders();
}

export function writeSse(response: ServerResponse, data: unknown): void {
  if (!response.writableEnded && !response.destroyed) response.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

export function endSse(response: ServerResponse): void {
  writeSse(response, "[DONE]");
  if (!response.writableEnded) response.end();
}

export function zodMessage(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message)).join("; ");
}
