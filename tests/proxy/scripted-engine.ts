// A raw /generate engine for proxy tests whose answer per call is scripted (SSE chunks as SGLang writes them), and
// which records each request body it was sent. Stands in for SGLang where the stand-in engine cannot be told what to do.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach } from "vitest";
import type { Harness } from "./harness.ts";

export interface GenerateBody {
  input_ids: number[];
  sampling_params: { max_new_tokens: number } & Record<string, unknown>;
  [field: string]: unknown;
}

/** A raw /generate engine whose behaviour per call is scripted; records what it was asked. */
export function scriptedEngine(handlers: ((body: GenerateBody, response: ServerResponse) => void)[]): { server: Server; calls: GenerateBody[]; start(): Promise<string> } {
  const calls: GenerateBody[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString()));
    request.on("end", () => {
      const body = JSON.parse(text) as GenerateBody;
      calls.push(body);
      const handler = handlers[Math.min(calls.length - 1, handlers.length - 1)]!;
      handler(body, response);
    });
  });
  return {
    server,
    calls,
    start: () => new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`))),
  };
}

export function sse(response: ServerResponse, ids: number[], version: string, finish: unknown, logProb = -0.5): void {
  response.write(`data: ${JSON.stringify({ text: "", output_ids: ids, meta_info: { id: "r", finish_reason: finish, weight_version: version, completion_tokens: ids.length, output_token_logprobs: ids.map((id) => [logProb, id, null]) } })}\n\n`);
}

/** A handler that sends `ids` in one chunk: finished with a stop at the last id, or (`aborted`) cut by a 499 error chunk. */
export function oneChunk(ids: number[], version: string, end: "stop" | "aborted"): (body: GenerateBody, response: ServerResponse) => void {
  return (_body, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    sse(response, ids, version, end === "stop" ? { type: "stop", matched: ids.at(-1) } : null);
    response.end(end === "stop" ? "data: [DONE]\n\n" : 'data: {"error":{"message":"Request r was aborted","code":499}}\n\ndata: [DONE]\n\n');
  };
}

/** The describe block's harness and scripted engine, closed after each of its tests. */
export function closedAfterEach(): { harness: Harness | null; engine: Server | null } {
  const slots: { harness: Harness | null; engine: Server | null } = { harness: null, engine: null };
  afterEach(async () => {
    await slots.harness?.close();
    slots.engine?.closeAllConnections();
    slots.engine?.close();
    slots.harness = slots.engine = null;
  });
  return slots;
}
