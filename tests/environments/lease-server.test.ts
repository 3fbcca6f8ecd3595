// The lease server over HTTP with a small environment of its own (the environment is the server's plug-in): idempotent
// allocate, 429 when full and the client's retry, the client's typed errors for unknown leases and calls before /reset,
// reaping, heartbeats, a crashing or hung tool as an observation, and a graceful close that releases every episode.
// Each answer's status and body against the reference's: lease-protocol-answers.test.ts.
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
    await expect(client.evaluate(lease)).rejects.toThrow(/\/evaluate answered 500, ok false: 'Unknown run_lease_id: run-[0-9a-f]{16}'$/);
  });

  it("gives a retried allocate (the same task key and request id) the same lease, and another pair another", async () => {
    const url = await start();
    const client = new EnvironmentClient(url);
    const first = await client.allocate("counter:a", "r1");
    expect(first).toMatch(/^0:run-[0-9a-f]{16}$/);
    expect(await client.allocate("counter:a", "r1")).toBe(first);
    expect(await client.allocate("counter:a", "r2")).not.toBe(first);
    expect(await client.allocate("counter:b", "r1")).not.toBe(first);
    const status = await (await fetch(`${url}/status`)).json();
    expect(status).toMatchObject({ ok: true, kind: "counter", leases: 3, capacity: 16 });
  });

  it("answers 429 when every slot is leased, and the client's retry gets the slot a close frees", async () => {
    const url = await start({ slots: 1 });
    const held = await new EnvironmentClient(url).allocate("counter:a", "r1");
    const full = await post(url, "/allocate", { task_key: "counter:a", request_id: "r2" });
    expect(full.status).toBe(429);
    expect(full.json).toEqual({ ok: false, error: "Worker at lease capacity: 1/1", code: "RUN_SLOTS_EXHAUSTED" });
    const patient = new EnvironmentClient(url, { capacityTries: 50, capacityBackoffMs: 20 });
    const waiting = patient.allocate("counter:a", "r2");
    setTimeout(() => void new EnvironmentClient(url).close(held), 100);
    expect(await waiting).not.toBe(held);
    await expect(new EnvironmentClient(url, { capacityTries: 2, capacityBackoffMs: 10 }).allocate("counter:a", "r3")).rejects.toThrow(/stayed full through 2 tries/);
  });

  it("gives the client typed errors with the server's words and what they mean: a lease that is gone, a call before /reset", async () => {
    const url = await start();
    const client = new EnvironmentClient(url, { retryDelayMs: 1 });
    const gone = await client.allocate("counter:a", "r1");
    await client.close(gone);
    await client.close(gone); // a lease already gone closes fine: {ok: true, found: false}
    const unknown = new RegExp(`answered 500, ok false: 'Unknown run_lease_id: ${gone.slice(2)}'`);
    const goneHint = expect.stringContaining("the lease is gone");
    await expect(client.reset(gone, { target: 1 })).rejects.toMatchObject({ code: "ENVIRONMENT_ERROR", message: expect.stringMatching(unknown), hint: goneHint });
    await expect(client.execTool(gone, { name: "add", arguments: { n: 1 } })).rejects.toMatchObject({ code: "ENVIRONMENT_ERROR", message: expect.stringMatching(unknown), hint: goneHint });
    await expect(client.heartbeat(gone)).rejects.toMatchObject({ message: expect.stringMatching(/\/heartbeat answered 500, .* \(after 10 tries\)$/), hint: goneHint });
    await expect(client.evaluate(gone)).rejects.toMatchObject({ message: expect.stringMatching(unknown), hint: goneHint });
    const fresh = await client.allocate("counter:a", "r2");
    await expect(client.execTool(fresh, { name: "add", arguments: { n: 1 } })).rejects.toMatchObject({
      message: expect.stringMatching(/\/exec_tool answered 500, ok false: env is not initialized; call reset first/),
      hint: expect.stringContaining("need a /reset that succeeded first"),
    });
    await expect(client.heartbeat(gone.replace("0:", ""))).rejects.toMatchObject({ message: expect.stringMatching(/answered 400, ok false: Invalid lease_id format: substring not found/), hint: expect.stringContaining("exactly as /allocate gave it") });
  });

  it("refuses a body past 1 MiB in the protocol's error shape (theirs reads any size)", async () => {
    const url = await start();
    const answer = await post(url, "/allocate", { task_key: "counter:a", request_id: "x".repeat(1024 * 1024) });
    expect(answer).toEqual({ status: 400, json: { ok: false, error: "body: larger than 1048576 bytes" } });
  });

  it("turns a tool that throws or never answers into an error observation, and the episode goes on", async () => {
    const url = await start({ toolTimeoutS: 0.3 });
    const client = new EnvironmentClient(url);
    const lease = await client.allocate("counter:a", "r1");
    await client.reset(lease, { target: 1 });
    // as the reference's pool writes a raising tool (terminal_env.py:201-203@0d034dd5)
    expect(await client.execTool(lease, { name: "crash", arguments: {} })).toBe("[TOOL_ERROR] crash: Error: the tool fell over");
    expect(await client.execTool(lease, { name: "hang", arguments: {} })).toBe("[TOOL_ERROR] hang: TimeoutError: no answer within 0.3 s");
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
    // the reaped lease's 500 is tried again as the reference's client does (10 times for a heartbeat): 1 ms apart here,
    // so the live lease's 0.4 s TTL is not outwaited by the retries
    const client = new EnvironmentClient(url, { retryDelayMs: 1 });
    const idle = await client.allocate("counter:a", "r1");
    const alive = await client.allocate("counter:a", "r2");
    await client.reset(idle, { target: 3 });
    for (let beat = 0; beat < 8; beat++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await client.heartbeat(alive);
    }
    await expect(client.heartbeat(idle)).rejects.toThrow(/\/heartbeat answered 500, ok false: 'Unknown run_lease_id: /);
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
