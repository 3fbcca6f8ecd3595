// The lease server over HTTP with a small environment of its own (the environment is the server's plug-in): idempotent
// allocate, 429 when full and the client's retry, unknown leases, bad bodies, reaping, heartbeats, a crashing or hung
// tool as an observation, and a graceful close that releases every episode.
import { afterEach, describe, expect, it } from "vitest";
import type { Environment, ToolCall } from "../../environments/environment.ts";
import { startLeaseServer, type LeaseServerOptionsInput, type RunningLeaseServer } from "../../environments/lease-server.ts";
import { EnvironmentClient } from "../../orchestrator/episodes/environment-client.ts";

interface CounterState {
  target: number;
  total: number;
}

/** Tools: `add {n}` adds to a total, `crash` throws, `hang` never answers; the score is 1 when the total is the target. */
class CounterEnvironment implements Environment<CounterState> {
  readonly kind = "counter";
  readonly released: CounterState[] = [];

  async reset(taskMeta: Record<string, unknown>) {
    const state = { target: Number(taskMeta.target), total: 0 };
    return { userMessage: `reach ${state.target}`, toolSchemas: [], state };
  }

  async execTool(state: CounterState, call: ToolCall): Promise<string> {
    if (call.name === "crash") throw new Error("the tool fell over");
    if (call.name === "hang") return new Promise<string>(() => undefined);
    state.total += Number((call.arguments as { n: number }).n);
    return String(state.total);
  }

  async evaluate(state: CounterState): Promise<number> {
    return state.total === state.target ? 1 : state.target < 0 ? 7 : 0;
  }

  async close(state: CounterState): Promise<void> {
    this.released.push(state);
  }
}

let server: RunningLeaseServer | null = null;
let environment: CounterEnvironment;

async function start(options: LeaseServerOptionsInput = {}): Promise<string> {
  environment = new CounterEnvironment();
  server = await startLeaseServer(environment, { port: 0, ...options });
  return server.url;
}

async function post(url: string, route: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

afterEach(async () => {
  await server?.close();
  server = null;
});

describe("the lease server", () => {
  it("runs a whole episode for the project's client: allocate, reset, tools, heartbeat, evaluate, close", async () => {
    const url = await start();
    const client = new EnvironmentClient(url);
    expect(await client.healthy()).toBe(true);
    const lease = await client.allocate("counter:a", "counter:a:uid:0:0");
    expect(await client.reset(lease, { task_name: "counter", task_path: "a", target: 5 })).toEqual({ userMessage: "reach 5", toolSchemas: [] });
    expect(await client.execTool(lease, { name: "add", arguments: { n: 2 } })).toBe("2");
    await client.heartbeat(lease);
    expect(await client.execTool(lease, { name: "add", arguments: { n: 3 } })).toBe("5");
    expect(await client.evaluate(lease)).toBe(1);
    await client.close(lease);
    expect(environment.released).toEqual([{ target: 5, total: 5 }]);
    await expect(client.evaluate(lease)).rejects.toThrow(/404.*unknown lease/);
  });

  it("gives a retried allocate the same lease, and another request id another", async () => {
    const url = await start();
    const client = new EnvironmentClient(url);
    const first = await client.allocate("counter:a", "r1");
    expect(await client.allocate("counter:a", "r1")).toBe(first);
    expect(await client.allocate("counter:a", "r2")).not.toBe(first);
    const status = await (await fetch(`${url}/status`)).json();
    expect(status).toMatchObject({ ok: true, kind: "counter", leases: 2, capacity: 16 });
  });

  it("answers 429 when every slot is leased, and the client's retry gets the slot a close frees", async () => {
    const url = await start({ slots: 1 });
    const held = await new EnvironmentClient(url).allocate("counter:a", "r1");
    const full = await post(url, "/allocate", { task_key: "counter:a", request_id: "r2" });
    expect(full.status).toBe(429);
    expect(full.json).toMatchObject({ ok: false, error: expect.stringContaining("no capacity") });
    const patient = new EnvironmentClient(url, { capacityTries: 50, capacityBackoffMs: 20 });
    const waiting = patient.allocate("counter:a", "r2");
    setTimeout(() => void new EnvironmentClient(url).close(held), 100);
    expect(await waiting).not.toBe(held);
    await expect(new EnvironmentClient(url, { capacityTries: 2, capacityBackoffMs: 10 }).allocate("counter:a", "r3")).rejects.toThrow(/stayed full through 2 tries/);
  });

  it("answers 404 with ok false for a lease it does not know, on every lease route", async () => {
    const url = await start();
    for (const [route, body] of [
      ["/reset", { lease_id: "nope", task_meta: {} }],
      ["/exec_tool", { lease_id: "nope", tool_call: { name: "add", arguments: { n: 1 } } }],
      ["/heartbeat", { lease_id: "nope" }],
      ["/evaluate", { lease_id: "nope" }],
      ["/close", { lease_id: "nope" }],
    ] as const) {
      const answer = await post(url, route, body);
      expect(answer.status, route).toBe(404);
      expect(answer.json, route).toEqual({ ok: false, error: expect.stringContaining("unknown lease nope") });
    }
  });

  it("answers 400 naming the field for a bad body, and for a tool call before the reset", async () => {
    const url = await start();
    const lease = await new EnvironmentClient(url).allocate("counter:a", "r1");
    const cases: [string, unknown, RegExp][] = [
      ["/allocate", { task_key: "counter:a" }, /^request_id: /],
      ["/allocate", { task_key: 3, request_id: "r" }, /^task_key: /],
      ["/allocate", "{not json", /^body: not JSON/],
      ["/reset", { lease_id: lease }, /^task_meta: /],
      ["/exec_tool", { lease_id: lease, tool_call: { arguments: {} } }, /^tool_call\.name: /],
      ["/evaluate", {}, /^lease_id: /],
      ["/close", { lease_id: "" }, /^lease_id: /],
      ["/exec_tool", { lease_id: lease, tool_call: { name: "add", arguments: { n: 1 } } }, /has no episode: call \/reset first/],
    ];
    for (const [route, body, error] of cases) {
      const answer = await post(url, route, body);
      expect(answer.status, route).toBe(400);
      expect(answer.json.ok, route).toBe(false);
      expect(answer.json.error, route).toMatch(error);
    }
    expect((await fetch(`${url}/allocate`)).status).toBe(405);
    expect((await post(url, "/nowhere", {})).status).toBe(404);
  });

  it("turns a tool that throws or never answers into an error observation, and the episode goes on", async () => {
    const url = await start({ toolTimeoutS: 0.3 });
    const client = new EnvironmentClient(url);
    const lease = await client.allocate("counter:a", "r1");
    await client.reset(lease, { target: 1 });
    expect(await client.execTool(lease, { name: "crash", arguments: {} })).toBe("error: crash failed: the tool fell over");
    expect(await client.execTool(lease, { name: "hang", arguments: {} })).toBe("error: hang did not answer within 0.3 s");
    expect(await client.execTool(lease, { name: "add", arguments: { n: 1 } })).toBe("1");
    expect(await client.evaluate(lease)).toBe(1);
  });

  it("refuses a score outside [0, 1] with a failed answer rather than passing it on", async () => {
    const url = await start();
    const client = new EnvironmentClient(url);
    const lease = await client.allocate("counter:a", "r1");
    await client.reset(lease, { target: -1 });
    await expect(client.evaluate(lease)).rejects.toThrow(/500.*not in \[0, 1\]/);
  });

  it("reaps a lease idle past its TTL (releasing its episode), while heartbeats keep another alive", async () => {
    const url = await start({ leaseTtlS: 0.4, sweepS: 0.05 });
    // the reaped lease's 404 is tried again as the reference's client does (10 times for a heartbeat): 1 ms apart here,
    // so the live lease's 0.4 s TTL is not outwaited by the retries
    const client = new EnvironmentClient(url, { retryDelayMs: 1 });
    const idle = await client.allocate("counter:a", "r1");
    const alive = await client.allocate("counter:a", "r2");
    await client.reset(idle, { target: 3 });
    for (let beat = 0; beat < 8; beat++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await client.heartbeat(alive);
    }
    await expect(client.heartbeat(idle)).rejects.toThrow(/404.*unknown lease/);
    expect(environment.released).toEqual([{ target: 3, total: 0 }]);
    expect(await (await fetch(`${url}/status`)).json()).toMatchObject({ leases: 1, reaped: 1 });
    expect(await client.allocate("counter:a", "r1")).not.toBe(idle);
  });

  it("a second reset releases the first episode; close() releases every episode and stops listening", async () => {
    const url = await start();
    const client = new EnvironmentClient(url);
    const lease = await client.allocate("counter:a", "r1");
    await client.reset(lease, { target: 1 });
    await client.reset(lease, { target: 2 });
    expect(environment.released).toEqual([{ target: 1, total: 0 }]);
    await server!.close();
    server = null;
    expect(environment.released).toEqual([{ target: 1, total: 0 }, { target: 2, total: 0 }]);
    expect(await client.healthy()).toBe(false);
  });
});
