// A test environment server speaking the reference's lease protocol as its servers answer it (terminal-rl
// router/pool servers, 881fd50; ../shared/reference/upstream-and-peers.md part (b)): JSON with `ok` on every answer,
// /allocate idempotent by request_id, 429 when every slot is leased, ok:false with an error for an unknown lease.
// Tools: `add` (a + b) and `echo`. The score is 1 when the episode called `add` with the task's numbers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

interface Lease {
  taskKey: string;
  taskMeta: Record<string, unknown>;
  calls: { name: string; arguments: Record<string, unknown> }[];
  heartbeats: number;
}

export class LeaseEnvServer {
  readonly leases = new Map<string, Lease>();
  readonly byRequest = new Map<string, string>();
  readonly log: string[] = [];
  /** Every /reset body, as sent. */
  readonly resets: Record<string, unknown>[] = [];
  private server: Server | null = null;
  private next = 1;

  constructor(private readonly slots = 2) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => void this.route(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, any>) : {};
    const route = request.url ?? "";
    this.log.push(route);
    const send = (status: number, answer: Record<string, unknown>) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(answer));
    };
    if (route === "/healthz") return send(200, { ok: true });
    if (route === "/allocate") {
      const known = this.byRequest.get(body.request_id);
      if (known) return send(200, { ok: true, lease_id: known });
      if (this.leases.size >= this.slots) return send(429, { ok: false, error: "no capacity" });
      const leaseId = `0:lease-${this.next++}`;
      this.leases.set(leaseId, { taskKey: body.task_key, taskMeta: {}, calls: [], heartbeats: 0 });
      this.byRequest.set(body.request_id, leaseId);
      return send(200, { ok: true, lease_id: leaseId });
    }
    const lease = this.leases.get(body.lease_id);
    if (!lease) return send(404, { ok: false, error: `unknown lease ${String(body.lease_id)}` });
    switch (route) {
      case "/reset":
        this.resets.push(body);
        lease.taskMeta = body.task_meta ?? {};
        return send(200, { ok: true, user_msg: `What is ${lease.taskMeta.a} + ${lease.taskMeta.b}?`, tool_schemas: [{ type: "function", function: { name: "add", parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } } } }] });
      case "/exec_tool": {
        const call = body.tool_call as { name: string; arguments: Record<string, unknown> };
        lease.calls.push(call);
        if (call.name === "add") return send(200, { ok: true, observation: String(Number(call.arguments.a) + Number(call.arguments.b)) });
        return send(200, { ok: true, observation: { echoed: call.arguments } });
      }
      case "/heartbeat":
        lease.heartbeats++;
        return send(200, { ok: true });
      case "/evaluate": {
        const solved = lease.calls.some((call) => call.name === "add" && call.arguments.a === lease.taskMeta.a && call.arguments.b === lease.taskMeta.b);
        return send(200, { ok: true, score: solved ? 1 : 0 });
      }
      case "/close":
        this.leases.delete(body.lease_id);
        return send(200, { ok: true });
      default:
        return send(404, { ok: false, error: `no route ${route}` });
    }
  }
}
