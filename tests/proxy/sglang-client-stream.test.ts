import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngineStatusError, SglangClient } from "../../orchestrator/engine/sglang-client.ts";

const chunk = (ids: number[], finish: unknown) =>
  `data: ${JSON.stringify({ text: "", output_ids: ids, meta_info: { id: "r", finish_reason: finish, weight_version: "7", completion_tokens: ids.length, output_token_logprobs: ids.map((id) => [-0.5, id, null]) } })}\n\n`;

describe("SglangClient.generateStream", () => {
  let server: Server;
  let url = "";
  beforeAll(async () => {
    server = createServer((request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      if (request.url === "/generate" && request.headers["x-mode"] === undefined) {
        response.write(chunk([1], null)); // then stalls: a hung engine
        return;
      }
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("ends a stalled stream with a retryable TIMEOUT after the idle gap", async () => {
    const client = new SglangClient({ baseUrl: url, timeoutMs: 150 });
    const seen: number[][] = [];
    const started = Date.now();
    const error = await (async () => {
      for await (const part of client.generateStream({ input_ids: [1], sampling_params: {} })) seen.push(part.output_ids ?? []);
    })().catch((caught: unknown) => caught);
    expect(seen).toEqual([[1]]);
    expect(error).toMatchObject({ code: "TIMEOUT", retryable: true });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("carries the HTTP status of a refused request (499 = aborted)", () => {
    const error = new EngineStatusError(499, "aborted", { retryable: true });
    expect(error.status).toBe(499);
    expect(error.code).toBe("ENGINE_ERROR");
  });
});
