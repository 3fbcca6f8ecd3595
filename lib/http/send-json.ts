// Sends one JSON answer: the body, its content type and length, and any headers the caller adds (a server's own
// security or cache headers). Once headers went out (a stream that failed midway) it only ends the response.
import type { ServerResponse } from "node:http";

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", ...headers, "content-length": Buffer.byteLength(text) });
  response.end(text);
}
