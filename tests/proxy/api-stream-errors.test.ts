// An engine failure after a Responses or Messages stream began (the 200 is out): each API's own failure event, read
// by the official clients; before it began: the API's error status.
import { createServer as createHttpServer, type Server } from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./harness.ts";

describe("engine failures on the Responses and Messages routes", () => {
  let engine: Server;
  let harness: Harness;
  beforeAll(async () => {
    // a /generate that accepts (200, event stream) and then sends SGLang's error chunk; anything else: a 500
    engine = createHttpServer((request, response) => {
      request.resume().once("end", () => {
        if (request.url === "/generate") {
          response.writeHead(200, { "content-type": "text/event-stream" });
          response.end('data: {"error":{"message":"CUDA out of memory","type":"invalid_request_error","code":500}}\n\ndata: [DONE]\n\n');
          return;
        }
        response.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "scheduler crashed" } }));
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", () => resolve()));
    harness = await startHarness({ script: () => "x", policyUrl: `http://127.0.0.1:${(engine.address() as { port: number }).port}` });
  });
  afterAll(async () => {
    await harness.close();
    engine.close();
  });

  it("ends a Responses stream with response.failed carrying the error, and a whole answer with a 502", async () => {
    const client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "any", maxRetries: 0 });
    const stream = await client.responses.create({ model: "qwen3-4b", input: "hi", stream: true });
    const types: string[] = [];
    let failed: OpenAI.Responses.ResponseFailedEvent | null = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.failed") failed = event;
    }
    expect(types).toEqual(["response.created", "response.in_progress", "response.failed"]);
    expect(failed?.response).toMatchObject({ status: "failed", error: { code: "engine_error", message: expect.stringMatching(/CUDA out of memory/) } });
    await expect(client.responses.create({ model: "qwen3-4b", input: "hi" })).rejects.toMatchObject({ status: 502, code: "engine_error" });
  });

  it("ends a Messages stream with an error event the SDK throws as an APIError, and a whole answer with a 500 api_error", async () => {
    const client = new Anthropic({ baseURL: harness.url, apiKey: "any", maxRetries: 0 });
    const stream = client.messages.stream({ model: "qwen3-4b", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    await expect(stream.finalMessage()).rejects.toMatchObject({ error: { type: "error", error: { type: "api_error", message: expect.stringMatching(/CUDA out of memory/) } } });
    const whole = client.messages.create({ model: "qwen3-4b", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    await expect(whole).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    await expect(whole).rejects.toMatchObject({ status: 500, error: { error: { type: "api_error" } } });
    expect(harness.closed).toEqual([]);
  });
});
