// EnvironmentClient against a server speaking the reference's lease protocol (lease-env-server.ts): a whole
// episode's calls, allocate idempotent by request id and retried while the server is full, and the errors a user
// sees for an unknown lease, a malformed answer and a server that is not there.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ENDPOINT_ATTEMPTS, EnvironmentClient } from "../../orchestrator/episodes/environment-client.ts";
import referenceAttempts from "../fixtures/terminal-rl/client-attempts.json" with { type: "json" };
import { LeaseEnvServer } from "./lease-env-server.ts";

describe("EnvironmentClient (the reference's lease protocol)", () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => Promise.all(servers.splice(0).map((server) => server.close())));

  async function env(slots = 2): Promise<{ server: LeaseEnvServer; url: string }> {
    const server = new LeaseEnvServer(slots);
    servers.push(server);
    return { server, url: await server.start() };
  }

  it("runs an episode's calls: allocate, reset, exec_tool, heartbeat, evaluate, close", async () => {
    const { server, url } = await env();
    const client = new EnvironmentClient(url);
    expect(await client.healthy()).toBe(true);
    const lease = await client.allocate("math:add-1", "math:add-1:u1:0:0");
    expect(await client.allocate("math:add-1", "math:add-1:u1:0:0")).toBe(lease); // idempotent by request id
    const reset = await client.reset(lease, { a: 2, b: 3 });
    expect(reset.userMessage).toBe("What is 2 + 3?");
    // camel's strict schemas, as the reference's pool sends them: every parameter required, one with a default nullable
    expect(reset.toolSchemas.map((tool) => (tool as { function: { name: string } }).function.name)).toEqual(["add", "echo"]);
    expect(reset.toolSchemas[1]).toMatchObject({ function: { strict: true, parameters: { required: ["text", "times"], additionalProperties: false, properties: { times: { type: ["integer", "null"] } } } } });
    await client.heartbeat(lease);
    expect(await client.execTool(lease, { name: "add", arguments: { a: 2, b: 3 } })).toBe("5");
    expect(await client.execTool(lease, { name: "echo", arguments: { text: "hi", times: null } })).toBe('{"echoed": "hi", "times": 1}');
    // a tool that raises is an observation, as the reference's pool answers it
    expect(await client.execTool(lease, { name: "echo", arguments: { x: 1 } })).toBe("[TOOL_ERROR] echo: TypeError: echo() got an unexpected keyword argument 'x'");
    expect(await client.evaluate(lease)).toBe(1);
    await client.close(lease);
    expect(server.leases.size).toBe(0);
    expect(server.log).toEqual(["/healthz", "/allocate", "/allocate", "/reset", "/heartbeat", "/exec_tool", "/exec_tool", "/exec_tool", "/evaluate", "/close"]);
  });

  it("closing a lease that is gone is fine, as the reference's pool answers it (200, found false); other calls on it fail naming the lease", async () => {
    const { url } = await env();
    const client = new EnvironmentClient(url, { retryDelayMs: 1 });
    const lease = await client.allocate("t:1", "t:1:u:0:0");
    await client.close(lease);
    await client.close(lease);
    const answer = await fetch(`${url}/close`, { method: "POST", body: JSON.stringify({ lease_id: lease }) });
    expect([answer.status, await answer.json()]).toEqual([200, { ok: true, found: false }]);
    await expect(client.heartbeat(lease)).rejects.toThrow(new RegExp(`/heartbeat answered 500, ok false: 'Unknown run_lease_id: ${lease.slice(2)}' \\(after 10 tries\\)`));
  });

  it("waits for room while the server answers 429, and says so by name when it stays full", async () => {
    const { url } = await env(1);
    const client = new EnvironmentClient(url, { capacityBackoffMs: 20, capacityTries: 50 });
    const first = await client.allocate("t:1", "t:1:u:0:0");
    const second = client.allocate("t:2", "t:2:u:0:0");
    setTimeout(() => void client.close(first), 100);
    expect(await second).not.toBe(first);
    const impatient = new EnvironmentClient(url, { capacityBackoffMs: 5, capacityTries: 3 });
    await expect(impatient.allocate("t:3", "t:3:u:0:0")).rejects.toMatchObject({ code: "ENVIRONMENT_ERROR", retryable: true, message: expect.stringMatching(/\/allocate: the environment stayed full through 3 tries/) });
  });

  it("names the endpoint and the problem: ok false, a malformed answer, no server", async () => {
    const { url } = await env();
    const client = new EnvironmentClient(url);
    await expect(client.evaluate("0:nope")).rejects.toThrow(/\/evaluate answered 500, ok false: 'Unknown run_lease_id: nope'/);
    const odd = createServer((_request, response) => response.end(JSON.stringify({ ok: true, score: 3 })));
    await new Promise<void>((resolve) => odd.listen(0, "127.0.0.1", resolve));
    servers.push({ close: () => new Promise((resolve) => odd.close(() => resolve())) });
    await expect(new EnvironmentClient(`http://127.0.0.1:${(odd.address() as AddressInfo).port}`).evaluate("x")).rejects.toThrow(/\/evaluate answered without a valid score: /);
    await expect(new EnvironmentClient("http://127.0.0.1:9", { timeoutMs: 2000, retryDelayMs: 1 }).reset("x", {})).rejects.toMatchObject({ code: "ENVIRONMENT_ERROR", hint: expect.stringContaining("episodes.env_url") });
  });
});

describe("EnvironmentClient's tries per endpoint (the reference's terminal client: env_client.py:16-20@0d034dd5)", () => {
  /** A server that fails each route's first `failures[route]` requests with `status` (a text body, as a router's 502 can be), then answers ok. */
  async function flaky(failures: Record<string, number>, status = 502): Promise<{ url: string; seen: Record<string, number>; close(): Promise<void> }> {
    const seen: Record<string, number> = {};
    const server = createServer((request, response) => {
      const route = request.url ?? "";
      seen[route] = (seen[route] ?? 0) + 1;
      request.resume();
      request.on("end", () => {
        if (seen[route]! <= (failures[route] ?? 0)) {
          response.writeHead(status, { "content-type": "text/plain" });
          response.end("Worker unreachable");
          return;
        }
        const answers: Record<string, unknown> = {
          "/allocate": { ok: true, lease_id: "L1" },
          "/reset": { ok: true, user_msg: "do it", tool_schemas: [] },
          "/exec_tool": { ok: true, observation: "done" },
          "/evaluate": { ok: true, score: 1 },
          "/heartbeat": { ok: true },
          "/close": { ok: true },
        };
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(answers[route]));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it("tries each endpoint as often as the reference does, then succeeds", async () => {
    const server = await flaky({ "/allocate": 99, "/reset": 9, "/heartbeat": 9, "/exec_tool": 2, "/close": 2 });
    try {
      const client = new EnvironmentClient(server.url, { retryDelayMs: 1 });
      expect(ENDPOINT_ATTEMPTS).toEqual(referenceAttempts.attempts);
      expect(await client.allocate("t:1", "t:1:u:0:0")).toBe("L1");
      await client.reset("L1", {});
      await client.heartbeat("L1");
      expect(await client.execTool("L1", { name: "run", arguments: {} })).toBe("done");
      expect(await client.evaluate("L1")).toBe(1);
      await client.close("L1");
      expect(server.seen).toEqual({ "/allocate": 100, "/reset": 10, "/heartbeat": 10, "/exec_tool": 3, "/evaluate": 1, "/close": 3 });
    } finally {
      await server.close();
    }
  });

  it("gives up after the reference's count with the endpoint, the server's answer and the tries named; evaluate is tried once", async () => {
    const server = await flaky({ "/exec_tool": 3, "/evaluate": 1 });
    try {
      const client = new EnvironmentClient(server.url, { retryDelayMs: 1 });
      await expect(client.execTool("L1", { name: "run", arguments: {} })).rejects.toThrow(/\/exec_tool answered 502 with a body that is not JSON: Worker unreachable \(after 3 tries\)/);
      await expect(client.evaluate("L1")).rejects.toThrow(/\/evaluate answered 502/);
      expect(server.seen).toEqual({ "/exec_tool": 3, "/evaluate": 1 });
    } finally {
      await server.close();
    }
  });

  it("does not try again a 200 answer with ok false (the server's own verdict)", async () => {
    const server = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.end(JSON.stringify({ ok: false, error: "task not found" })));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      let requests = 0;
      server.on("request", () => (requests += 1));
      const client = new EnvironmentClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { retryDelayMs: 1 });
      await expect(client.reset("L1", {})).rejects.toThrow(/\/reset answered 200, ok false: task not found/);
      expect(requests).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
