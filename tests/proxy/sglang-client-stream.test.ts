import { createServer, type RequestListener } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngineStatusError, retryableStatus } from "../../lib/sglang/engine-errors.ts";
import { generateRequestSchema } from "../../contracts/sglang.ts";
import { generatePayload, SglangClient } from "../../lib/sglang/sglang-client.ts";

const chunk = (ids: number[], finish: unknown) =>
  `data: ${JSON.stringify({ text: "", output_ids: ids, meta_info: { id: "r", finish_reason: finish, weight_version: "7", completion_tokens: ids.length, output_token_logprobs: ids.map((id) => [-0.5, id, null]) } })}\n\n`;

/** A loopback HTTP server standing in for the engine, counting the connections clients open to it. */
async function startEngine(handle: RequestListener): Promise<{ url: string; connections(): number; close(): void }> {
  let connections = 0;
  const server = createServer(handle);
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    connections: () => connections,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe("SglangClient.generateStream", () => {
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
    engine = await startEngine((request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      if (request.url === "/generate" && request.headers["x-mode"] === undefined) {
        response.write(chunk([1], null)); // then stalls: a hung engine
        return;
      }
      response.end();
    });
  });
  afterAll(() => engine.close());

  it("ends a stalled stream with a retryable TIMEOUT after the idle gap", async () => {
    const client = new SglangClient({ baseUrl: engine.url, timeoutMs: 150 });
    const seen: number[][] = [];
    const started = Date.now();
    const error = await (async () => {
      for await (const part of client.generateStream({ input_ids: [1], sampling_params: {} })) seen.push(part.output_ids ?? []);
    })().catch((caught: unknown) => caught);
    expect(seen).toEqual([[1]]);
    expect(error).toMatchObject({ code: "TIMEOUT", retryable: true });
    expect(Date.now() - started).toBeLessThan(20_000); // the engine never answers: anything short of the test's budget is the timeout
  });

  it("carries the HTTP status of a refused request (499 = aborted) and derives retryability from it", () => {
    const error = new EngineStatusError(499, "aborted");
    expect(error).toMatchObject({ status: 499, code: "ENGINE_ERROR", retryable: true });
  });

  it("one rule for retrying an engine call: 408, 429, 499 and 5xx are worth another try, other 4xx never", () => {
    const table = [400, 401, 404, 408, 409, 422, 429, 499, 500, 502, 503, 504].map((status) => [status, retryableStatus(status)]);
    expect(Object.fromEntries(table)).toEqual({ 400: false, 401: false, 404: false, 408: true, 409: false, 422: false, 429: true, 499: true, 500: true, 502: true, 503: true, 504: true });
    expect(new EngineStatusError(429, "busy").retryable).toBe(true);
    expect(new EngineStatusError(422, "invalid").retryable).toBe(false);
  });
});

describe("SglangClient stream chunk validation", () => {
  it("accepts cumulative chunks and rejects a malformed log-prob entry", async () => {
    const bodies = [
      chunk([5], null) + chunk([5, 6], { type: "stop", matched: 6 }) + "data: [DONE]\n\n",
      chunk([5], null) + `data: ${JSON.stringify({ text: "", output_ids: [5, 6], meta_info: { id: "r", finish_reason: null, completion_tokens: 2, output_token_logprobs: [[-0.5, 5, null], ["bad", 6, null]] } })}\n\n`,
    ];
    let call = 0;
    const engine = await startEngine((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(bodies[call++]);
    });
    const client = new SglangClient({ baseUrl: engine.url, timeoutMs: 2000 });
    try {
      const parts = [];
      for await (const part of client.generateStream({ input_ids: [1], sampling_params: {} })) parts.push(part);
      expect(parts.map((part) => part.output_ids)).toEqual([[5], [5, 6]]);
      expect(parts[1]!.meta_info.output_token_logprobs).toEqual([[-0.5, 5, null], [-0.5, 6, null]]);
      expect(parts[1]!.meta_info.finish_reason).toEqual({ type: "stop", matched: 6 });
      const error = await (async () => {
        for await (const _ of client.generateStream({ input_ids: [1], sampling_params: {} })) void _;
      })().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "ENGINE_ERROR" });
      expect((error as Error).message).toMatch(/output_token_logprobs\.1/);
    } finally {
      engine.close();
    }
  });
});

describe("SglangClient stream connections", () => {
  it("reuses one keep-alive connection for streams read to [DONE], and cuts a stream left early", async () => {
    const engine = await startEngine(async (request, response) => {
      for await (const part of request) void part;
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(chunk([3], null));
      setTimeout(() => response.end(chunk([3, 4], { type: "stop", matched: 4 }) + "data: [DONE]\n\n"), 2);
    });
    const client = new SglangClient({ baseUrl: engine.url, timeoutMs: 2000 });
    try {
      for (let round = 0; round < 5; round++) {
        const ids: number[][] = [];
        for await (const part of client.generateStream({ input_ids: [1], sampling_params: {} })) ids.push(part.output_ids ?? []);
        expect(ids).toEqual([[3], [3, 4]]);
      }
      expect(engine.connections()).toBeLessThanOrEqual(2); // (a request sent before the last one's end was read opens a second)
      for await (const part of client.generateStream({ input_ids: [1], sampling_params: {} })) if (part) break; // left after the first chunk
      const again: number[][] = [];
      for await (const part of client.generateStream({ input_ids: [1], sampling_params: {} })) again.push(part.output_ids ?? []);
      expect(again).toEqual([[3], [3, 4]]);
    } finally {
      engine.close();
    }
  });
});

describe("SglangClient stale keep-alive connections", () => {
  it("sends a request again on a new connection when the engine closed the reused one", async () => {
    const served = new WeakMap<object, number>();
    const engine = await startEngine(async (request, response) => {
      for await (const part of request) void part;
      const count = (served.get(request.socket) ?? 0) + 1;
      served.set(request.socket, count);
      if (count > 1) return request.socket.destroy(); // an engine that drops idle connections without telling
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(chunk([8], { type: "stop", matched: 8 }) + "data: [DONE]\n\n");
    });
    const client = new SglangClient({ baseUrl: engine.url, timeoutMs: 2000 });
    try {
      for (let round = 0; round < 3; round++) {
        const ids: number[][] = [];
        for await (const part of client.generateStream({ input_ids: [1], sampling_params: {} })) ids.push(part.output_ids ?? []);
        expect(ids).toEqual([[8]]);
        await new Promise((resolve) => setTimeout(resolve, 20)); // the socket is back in the pool
      }
      expect(engine.connections()).toBe(3);
    } finally {
      engine.close();
    }
  });
});

describe("SglangClient request target", () => {
  it("streams to the base URL's path prefix, on its host and port", async () => {
    const paths: string[] = [];
    const engine = await startEngine((request, response) => {
      paths.push(request.url ?? "");
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(chunk([5], { type: "stop", matched: 5 }) + "data: [DONE]\n\n");
    });
    try {
      const client = new SglangClient({ baseUrl: `${engine.url}/engine/`, timeoutMs: 2000 });
      const seen: number[][] = [];
      for await (const part of client.generateStream({ input_ids: [1], sampling_params: {} })) seen.push(part.output_ids ?? []);
      expect(seen).toEqual([[5]]);
      expect(paths).toEqual(["/engine/generate"]);
    } finally {
      engine.close();
    }
  });
});

describe("generatePayload", () => {
  it("copies cached input_ids parts into the same bytes a plain serialisation gives", () => {
    const request = { input_ids: [151644, 872, 198, 0, 42], sampling_params: { temperature: 0.6, max_new_tokens: 10, stop: ["\"}", "→ fin"] }, return_logprob: true, stream: true };
    const parts = ["151644", "872,198", "0", "42"];
    const bytes = generatePayload(request, parts);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.toString()).toBe(JSON.stringify(request));
    expect(Buffer.compare(bytes as Buffer, Buffer.from(JSON.stringify(request)))).toBe(0);
    expect(generatePayload(request)).toBe(JSON.stringify(request));
    expect(JSON.parse(generatePayload({ input_ids: [7] } as never, ["7"]).toString())).toEqual({ input_ids: [7] });
    expect(JSON.parse(generatePayload({ input_ids: [], stream: true } as never, []).toString())).toEqual({ input_ids: [], stream: true });
  });
});

describe("SglangClient.generate (node:http, keep-alive)", () => {
  const answer = { text: "ok", output_ids: [5], meta_info: { id: "r", finish_reason: { type: "stop", matched: 5 }, prompt_tokens: 1, completion_tokens: 1 } };
  let engine: Awaited<ReturnType<typeof startEngine>>;
  beforeAll(async () => {
    engine = await startEngine((request, response) => {
      let body = "";
      request.on("data", (part) => (body += part));
      request.on("end", () => {
        const mode = request.headers["x-mode"] ?? JSON.parse(body).mode;
        if (mode === "hang") return; // never answers
        if (mode === "busy") return void response.writeHead(503, { "content-type": "application/json" }).end('{"error":{"message":"queue full"}}');
        if (mode === "garbage") return void response.writeHead(200, { "content-type": "text/plain" }).end("<html>oops</html>");
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...answer, meta_info: { ...answer.meta_info, echoed: JSON.parse(body) } }));
      });
    });
  });
  afterAll(() => engine.close());
  const request = (mode: string) => ({ input_ids: [1, 2], sampling_params: { max_new_tokens: 1 }, mode }) as never;

  it("sends the request as JSON with stream false and parses the answer; calls share one kept-alive connection", async () => {
    const client = new SglangClient({ baseUrl: engine.url });
    const before = engine.connections();
    const first = await client.generate(request("ok"));
    await client.generate(request("ok"));
    expect(first.output_ids).toEqual([5]);
    expect((first.meta_info as Record<string, unknown>).echoed).toMatchObject({ input_ids: [1, 2], stream: false, sampling_params: { max_new_tokens: 1 } });
    expect(engine.connections() - before).toBe(1);
  });

  it("refuses with the engine's status and message, a non-JSON answer, a timeout, an unreachable engine and the caller's abort", async () => {
    const client = new SglangClient({ baseUrl: engine.url });
    await expect(client.generate(request("busy"))).rejects.toMatchObject({ status: 503, retryable: true, message: expect.stringContaining("queue full") });
    await expect(client.generate(request("garbage"))).rejects.toMatchObject({ code: "ENGINE_ERROR", message: expect.stringContaining("non-JSON answer") });
    const started = Date.now();
    await expect(client.generate(request("hang"), { timeoutMs: 150 })).rejects.toMatchObject({ code: "TIMEOUT", retryable: true });
    expect(Date.now() - started).toBeLessThan(20_000); // the engine never answers: anything short of the test's budget is the timeout
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("shutting down")), 50);
    await expect(client.generate(request("hang"), { signal: controller.signal })).rejects.toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", () => resolve()));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(new SglangClient({ baseUrl: `http://127.0.0.1:${port}` }).generate(request("ok"))).rejects.toMatchObject({ code: "ENGINE_UNAVAILABLE", retryable: true });
    expect(await client.generate(request("ok"))).toMatchObject({ output_ids: [5] }); // still usable after all that
  });
});

describe("one /generate request schema for the client and the stand-in", () => {
  it("every request shape the client sends parses with contracts/sglang.ts's schema; a request with both text and ids does not", () => {
    const shapes = [
      { input_ids: [1, 2, 3], sampling_params: { temperature: 0.6, top_p: 0.95, max_new_tokens: 100, skip_special_tokens: false }, return_logprob: true, stream: true, rid: "r1" },
      { input_ids: [1, 2, 3], sampling_params: { max_new_tokens: 0 }, return_logprob: true, logprob_start_len: 1, top_logprobs_num: 5 },
      { input_ids: [1, 2, 3], sampling_params: { temperature: 0.6, top_p: 1, top_k: -1, min_p: 0, max_new_tokens: 1, skip_special_tokens: false }, return_logprob: true, token_ids_logprob: [7] },
    ];
    for (const shape of shapes) {
      const payload = generatePayload(shape);
      expect(generateRequestSchema.safeParse(JSON.parse(String(payload))).success).toBe(true);
    }
    expect(generateRequestSchema.safeParse({ text: "hi", input_ids: [1], sampling_params: {} }).success).toBe(false);
  });
});
