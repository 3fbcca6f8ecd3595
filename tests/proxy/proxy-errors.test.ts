import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/loopback.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { createProxy } from "../../orchestrator/proxy/proxy-server.ts";
import { testRecipe } from "./fixtures.ts";
import { postChat, qwen3, startHarness, streamChat, type Harness } from "./harness.ts";


describe("bad input, auth and engine failures", () => {
  let harness: Harness;
  let ready = true;
  beforeAll(async () => {
    const script = (prompt: string): string => {
      if (prompt.includes("please explode") && !prompt.includes("again")) throw new Error("model exploded");
      return "fine";
    };
    harness = await startHarness({ script, apiKey: "secret-key", recipe: { proxy: { max_body_bytes: 4096 } }, ready: () => ready });
  });
  afterAll(async () => harness.close());
  const auth = { authorization: "Bearer secret-key" };

  it("rejects bad bodies with a 4xx naming the problem and changes no state", async () => {
    const cases: [unknown, number, RegExp][] = [
      ["{not json", 400, /not valid JSON/],
      [{ messages: [] }, 400, /messages/],
      [{}, 400, /messages/],
      [{ messages: [{ role: "wizard", content: "hi" }] }, 400, /messages\.0/],
      [{ messages: [{ role: "user", content: 42 }] }, 400, /messages\.0\.content/],
      [{ messages: [{ role: "user", content: "hi" }], n: 2 }, 400, /n = 1/],
      [{ messages: [{ role: "user", content: "x".repeat(5000) }] }, 413, /max_body_bytes/],
    ];
    for (const [body, status, message] of cases) {
      const answer = await postChat(harness.url, body, auth);
      expect(answer.status, JSON.stringify(body).slice(0, 40)).toBe(status);
      const error = answer.body.error as { message: string; type: string; param: unknown; code: unknown };
      expect(error.message).toMatch(message);
      expect(error.type).toBe("invalid_request_error");
      expect(error).toHaveProperty("param");
      expect(error).toHaveProperty("code");
    }
    expect(harness.proxy.stats()).toEqual({ sessions: 0, turns: { main: 0, side: 0 }, inFlight: 0 });
    expect(harness.standin.state.counters.requests).toBe(0);
  });

  it("reads chunked bodies (no Content-Length) up to max_body_bytes and answers 413 past it", async () => {
    const send = (parts: string[]): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const outgoing = httpRequest(`${harness.url}/v1/chat/completions`, { method: "POST", headers: { ...auth, "content-type": "application/json", "transfer-encoding": "chunked" } });
        outgoing.once("error", reject);
        outgoing.once("response", (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (part: string) => (body += part)).once("end", () => resolve({ status: response.statusCode ?? 0, body }));
        });
        for (const part of parts) outgoing.write(part);
        outgoing.end();
      });
    const ok = await send(['{"messages": [{"role": "user", ', '"content": "in two parts"}], "session_id": "chunked", "session_done": true}']);
    expect(ok.status, ok.body).toBe(200);
    expect(JSON.parse(ok.body).choices[0].message.content).toBe("fine");
    const big = await send(['{"messages": [{"role": "user", "content": "', "x".repeat(3000), "y".repeat(3000), '"}]}']);
    expect(big.status).toBe(413);
    expect(big.body).toMatch(/max_body_bytes/);
  });

  it("checks the Bearer key on /v1 routes only", async () => {
    const body = { messages: [{ role: "user", content: "hi" }] };
    expect((await postChat(harness.url, body)).status).toBe(401);
    const wrong = await postChat(harness.url, body, { authorization: "Bearer nope" });
    expect(wrong.status).toBe(401);
    expect((wrong.body.error as { type: string }).type).toBe("authentication_error");
    expect((await fetch(`${harness.url}/v1/models`)).status).toBe(401);
    const models = (await (await fetch(`${harness.url}/v1/models`, { headers: auth })).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toEqual(["qwen3-4b", "qwen3-4b-utility"]);
    expect((await fetch(`${harness.url}/healthz`)).status).toBe(200);
    const ok = await postChat(harness.url, body, auth);
    expect(ok.status).toBe(200);
    expect((ok.body.choices as { message: { content: string } }[])[0]!.message.content).toBe("fine");
  });

  it("answers 503 with Retry-After while the engines are not ready, naming what is not ready (not claiming it is the policy)", async () => {
    ready = false;
    try {
      const readyz = await fetch(`${harness.url}/readyz`);
      expect(readyz.status).toBe(503);
      expect(readyz.headers.get("retry-after")).toBe("7");
      expect(((await readyz.json()) as { reason: string }).reason).toMatch(/starting/);
      const before = harness.proxy.stats();
      const answer = await postChat(harness.url, { messages: [{ role: "user", content: "hi" }] }, auth);
      expect(answer.status).toBe(503);
      expect(answer.headers.get("retry-after")).toBe("7");
      expect((answer.body.error as { message: string }).message).toBe("the engines are not ready: policy engine starting");
      expect(harness.proxy.stats()).toEqual(before);
    } finally {
      ready = true;
    }
    expect((await fetch(`${harness.url}/readyz`)).status).toBe(200);
  });

  it("answers 502 with the engine's reason when the engine fails, and never hands the turn on", async () => {
    const closedBefore = harness.closed.length;
    const answer = await postChat(harness.url, { messages: [{ role: "user", content: "please explode" }] }, { ...auth, "x-session-id": "boom" });
    expect(answer.status).toBe(502);
    // the stand-in just ends its stream when the responder throws
    expect((answer.body.error as { message: string; type: string }).message).toMatch(/ended without a finish reason/);
    await postChat(harness.url, { messages: [{ role: "user", content: "please explode" }, { role: "assistant", content: "" }, { role: "user", content: "again" }] }, { ...auth, "x-session-id": "boom", "x-session-done": "1" });
    expect(harness.closed.slice(closedBefore).filter((turn) => turn.sessionId === "boom" && turn.turn === 0)).toEqual([]);
  });
});

describe("engine errors", () => {
  it("passes the engine's own reason on with a 502, for an HTTP error and for a mid-stream error chunk", async () => {
    const engine = createHttpServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        if (body.includes('"input_ids":[') && request.url === "/generate" && body.includes("max_new_tokens\":7")) {
          response.writeHead(200, { "content-type": "text/event-stream" });
          response.end('data: {"error":{"message":"CUDA out of memory","type":"invalid_request_error","code":500}}\n\ndata: [DONE]\n\n');
          return;
        }
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: "scheduler crashed" } }));
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", () => resolve()));
    const harness = await startHarness({ script: () => "x", policyUrl: `http://127.0.0.1:${(engine.address() as { port: number }).port}` });
    try {
      const http = await postChat(harness.url, { messages: [{ role: "user", content: "hi" }] });
      expect(http.status).toBe(502);
      expect((http.body.error as { message: string }).message).toMatch(/scheduler crashed/);
      const chunk = await postChat(harness.url, { messages: [{ role: "user", content: "hi" }], max_tokens: 7 });
      expect(chunk.status).toBe(502);
      expect((chunk.body.error as { message: string }).message).toMatch(/CUDA out of memory/);
      // streamed, after the engine accepted: 200 was sent, so an OpenAI error event (those four fields only), then [DONE]
      const streamed = await streamChat(harness.url, { stream: true, messages: [{ role: "user", content: "hi" }], max_tokens: 7 });
      expect(streamed.status).toBe(200);
      const failure = streamed.events.find((event) => event.data !== "[DONE]" && "error" in event.data)!.data as { error: Record<string, unknown> };
      expect(failure.error).toEqual({ message: expect.stringMatching(/CUDA out of memory/), type: "server_error", param: null, code: "engine_error" });
      expect(streamed.events.at(-1)!.data).toBe("[DONE]");
      expect(harness.closed).toEqual([]);
    } finally {
      await harness.close();
      engine.close();
    }
  });
});

describe("engine refusals", () => {
  it("answers 400 with the engine's reason when the engine refuses the request as invalid (a 400 error chunk)", async () => {
    // SGLang checks sampling values the proxy hands on as they are; its refusal is the client's to fix, not a 502
    const engine = createHttpServer((request, response) => {
      request.resume().once("end", () => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end('data: {"error":{"message":"min_new_tokens must be in [0, max_new_tokens(4)], got 9.","type":"invalid_request_error","code":400}}\n\ndata: [DONE]\n\n');
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", () => resolve()));
    const harness = await startHarness({ script: () => "x", policyUrl: `http://127.0.0.1:${(engine.address() as { port: number }).port}` });
    try {
      const answer = await postChat(harness.url, { messages: [{ role: "user", content: "hi" }] });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: "invalid_request_error", code: "engine_rejected", message: expect.stringMatching(/refused the request: .*min_new_tokens must be/) });
    } finally {
      await harness.close();
      engine.close();
    }
  });
});

describe("engine down and listen rules", () => {
  it("answers 503 with Retry-After when the engine refuses connections, streamed or not", async () => {
    const port = await freePort();
    const harness = await startHarness({ script: () => "x", policyUrl: `http://127.0.0.1:${port}` });
    try {
      const answer = await postChat(harness.url, { messages: [{ role: "user", content: "hi" }] });
      expect(answer.status).toBe(503);
      expect(answer.headers.get("retry-after")).not.toBeNull();
      expect((answer.body.error as { message: string }).message).toMatch(/unavailable/);
      // a stream the engine never accepted has sent nothing: it gets the status too (OpenClaw always streams; SDKs
      // retry on the status, not on an error event inside a 200)
      const streamed = await postChat(harness.url, { stream: true, messages: [{ role: "user", content: "hi" }] });
      expect(streamed.status).toBe(503);
      expect(streamed.headers.get("retry-after")).toBe("5");
      expect(streamed.headers.get("content-type")).toMatch(/application\/json/);
      expect(streamed.body).toEqual({ error: { message: expect.stringMatching(/unavailable/), type: "server_error", param: null, code: "engine_unavailable" } });
    } finally {
      await harness.close();
    }
  });

  it("refuses to bind a non-loopback address without a key", async () => {
    const { tokenizer, template } = await qwen3();
    const proxy = createProxy({
      recipe: testRecipe(),
      policy: new SglangClient({ baseUrl: "http://127.0.0.1:1" }),
      tokenizer,
      template,
      bus: new EventBus(),
      onTurnClosed: () => {},
      readiness: () => ({ ready: true, reason: "", retryAfterS: 0 }),
      apiKey: undefined,
      recordsDir: "/tmp/unused-proxy-records",
    });
    const error = await proxy.listen(0, "0.0.0.0").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenclawRlError);
    expect(error).toMatchObject({ code: "UNAUTHORIZED", path: "proxy.host" });
    expect((error as OpenclawRlError).hint).toMatch(/OPENCLAW_RL_API_KEY/);
    await proxy.close(0);
  });
});
