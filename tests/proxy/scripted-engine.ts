// A raw SGLang /generate engine whose answer to each call is scripted, recording every request body it was sent; and
// one streamed chunk in SGLang's cumulative form. For tests of what the proxy asks of the engine.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export interface GenerateBody {
  input_ids: number[];
  sampling_params: { max_new_tokens: number } & Record<string, unknown>;
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
