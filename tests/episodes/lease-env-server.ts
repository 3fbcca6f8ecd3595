// A test environment server that answers as the reference's terminal router in front of one pool server does
// (Gen-Verse/OpenClaw-RL@0d034dd5: terminal-rl/router_server.py, terminal-rl/remote/pool_server.py, the exec_tool of
// terminal-rl/remote/terminal_env.py), errors included; its environment is ours: tools `add` and `echo`, scored 1 when
// the episode called `add` with the task's numbers. What it answers, route by route, as theirs:
// - /allocate {task_key, request_id} → {ok, lease_id: "0:run-<16 hex>", reused, worker_idx: 0}; the same
//   (task_key, request_id) gets the same lease while it lives (reused: true); 429 {ok: false, error, code} with code
//   TASK_SLOTS_EXHAUSTED or RUN_SLOTS_EXHAUSTED at max_tasks / max_runs_per_task; 400 "task_key is required".
// - /reset, /heartbeat, /exec_tool, /evaluate, /close: 400 "lease_id is required"; a lease id without a worker index
//   is 400 "Invalid lease_id format: …" (the router's); an unknown lease is 500 "'Unknown run_lease_id: <id>'" (the
//   pool's KeyError as str() writes it), except /close: 200 {ok: true, found: false}.
// - /exec_tool or /evaluate before /reset: 500 "env is not initialized; call reset first"; an unknown tool, or a tool
//   that raises, is 200 {ok: true, observation: "[TOOL_ERROR] …"}; an observation is always text (a tool's non-text
//   result as Python's json.dumps writes it).
// - /reset's tool_schemas are camel's strict ones (FunctionTool.get_openai_tool_schema, camel-ai 0.2.89: every
//   parameter required, one with a default nullable); /evaluate {ok, score}; /close {ok: true, found: true}.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";

interface Lease {
  taskKey: string;
  /** Set by /reset: the pool's env has no tools before it. */
  taskMeta: Record<string, unknown> | null;
  calls: { name: string; arguments: Record<string, unknown> }[];
  heartbeats: number;
}

/** The tools as camel's FunctionTool describes `def add(a: float, b: float)` and `def echo(text: str, times: int = 1)`. */
export const TOOL_SCHEMAS = [
  {
    type: "function",
    function: {
      name: "add",
      description: "Adds two numbers.",
      strict: true,
      parameters: {
        properties: { a: { type: "number", description: "The first number." }, b: { type: "number", description: "The second number." } },
        required: ["a", "b"],
        type: "object",
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "echo",
      description: "Echoes the text back.",
      strict: true,
      parameters: {
        properties: { text: { type: "string", description: "What to echo." }, times: { type: ["integer", "null"], description: "How many times.\n(default: :obj:`1`)" } },
        required: ["text", "times"],
        type: "object",
        additionalProperties: false,
      },
    },
  },
];

/** Python's json.dumps with its default separators (", " and ": "), as the pool writes a tool's non-text result. */
function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (value !== null && typeof value === "object") return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${pythonJson(item)}`).join(", ")}}`;
  return JSON.stringify(value ?? null);
}

const pythonType = (value: unknown): string => (typeof value === "string" ? "str" : typeof value === "number" ? (Number.isInteger(value) ? "int" : "float") : value === null ? "NoneType" : Array.isArray(value) ? "list" : typeof value === "boolean" ? "bool" : "dict");

/** Calls `name(**arguments)` as Python would: the TypeError of an unexpected or missing argument, then the tool. */
function callTool(name: "add" | "echo", args: Record<string, unknown>): unknown {
  const parameters = name === "add" ? ["a", "b"] : ["text", "times"];
  const unexpected = Object.keys(args).find((key) => !parameters.includes(key));
  if (unexpected) throw new TypeError(`${name}() got an unexpected keyword argument '${unexpected}'`);
  const missing = (name === "add" ? ["a", "b"] : ["text"]).filter((key) => !(key in args));
  if (missing.length > 0) {
    const names = missing.map((key) => `'${key}'`).join(" and ");
    throw new TypeError(`${name}() missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${names}`);
  }
  if (name === "echo") return { echoed: args.text, times: args.times ?? 1 };
  const { a, b } = args;
  if (typeof a === "number" && typeof b === "number") return a + b;
  if (typeof a === "string" && typeof b === "string") return a + b;
  if (typeof a === "string") throw new TypeError(`can only concatenate str (not "${pythonType(b)}") to str`);
  throw new TypeError(`unsupported operand type(s) for +: '${pythonType(a)}' and '${pythonType(b)}'`);
}

export interface LeaseEnvLimits {
  /** The pool's --max-tasks (task keys leased at once). */
  maxTasks: number;
  /** The pool's --max-runs-per-task (leases of one task key at once). */
  maxRunsPerTask: number;
}

export class LeaseEnvServer {
  /** Live leases by the router's lease id ("0:run-…"). */
  readonly leases = new Map<string, Lease>();
  readonly log: string[] = [];
  /** Every /reset body, as sent. */
  readonly resets: Record<string, unknown>[] = [];
  private readonly byRequest = new Map<string, string>();
  private readonly limits: LeaseEnvLimits;
  private server: Server | null = null;

  /** `limits` as a number n: n task keys of n leases each. */
  constructor(limits: number | LeaseEnvLimits = 2) {
    this.limits = typeof limits === "number" ? { maxTasks: limits, maxRunsPerTask: limits } : limits;
  }

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
    const route = request.url ?? "";
    this.log.push(route);
    const send = (status: number, answer: Record<string, unknown>) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(answer));
    };
    if (route === "/healthz") return request.method === "GET" ? send(200, { ok: true }) : send(405, { detail: "Method Not Allowed" });
    if (!["/allocate", "/reset", "/heartbeat", "/exec_tool", "/evaluate", "/close"].includes(route)) return send(404, { detail: "Not Found" });
    if (request.method !== "POST") return send(405, { detail: "Method Not Allowed" });
    send(...this.answer(route, this.jsonPayload(chunks)));
  }

  /** request_utils.json_payload: a body that is not a JSON object reads as {}. */
  private jsonPayload(chunks: Buffer[]): Record<string, any> {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
      return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, any>) : {};
    } catch {
      return {};
    }
  }

  private answer(route: string, body: Record<string, any>): [number, Record<string, unknown>] {
    if (route === "/allocate") return this.allocate(body);
    const leaseId = body.lease_id;
    if (!leaseId) return [400, { ok: false, error: "lease_id is required" }];
    // the router's decode_lease: "<worker index>:<the pool's lease>"; one worker here
    const separator = String(leaseId).indexOf(":");
    if (separator < 0) return [400, { ok: false, error: "Invalid lease_id format: substring not found" }];
    const index = String(leaseId).slice(0, separator);
    if (!/^\s*[+-]?\d+\s*$/.test(index)) return [400, { ok: false, error: `Invalid lease_id format: invalid literal for int() with base 10: '${index}'` }];
    if (Number(index) !== 0 && Number(index) !== -1) return [400, { ok: false, error: "Invalid lease_id format: list index out of range" }];
    const poolLease = String(leaseId).slice(separator + 1);
    const globalLease = `0:${poolLease}`;
    const lease = this.leases.get(globalLease);
    if (route === "/close") {
      if (lease) this.leases.delete(globalLease);
      return [200, { ok: true, found: Boolean(lease) }];
    }
    if (route === "/reset" && (body.task_meta === null || typeof body.task_meta !== "object" || Array.isArray(body.task_meta))) return [400, { ok: false, error: "task_meta dict is required" }];
    if (route === "/exec_tool") {
      const call = body.tool_call;
      if (call === null || typeof call !== "object" || Array.isArray(call)) return [400, { ok: false, error: "tool_call dict is required" }];
      if (typeof call.name !== "string" || !call.name) return [400, { ok: false, error: "tool_call.name is required" }];
      if (call.arguments !== undefined && call.arguments !== null && (typeof call.arguments !== "object" || Array.isArray(call.arguments))) return [400, { ok: false, error: "tool_call.arguments must be a dict" }];
    }
    if (!lease) return [500, { ok: false, error: `'Unknown run_lease_id: ${poolLease}'` }];
    switch (route) {
      case "/reset":
        return this.reset(lease, body);
      case "/heartbeat":
        lease.heartbeats++;
        return [200, { ok: true }];
      case "/exec_tool":
        return this.execTool(lease, body.tool_call as { name: string; arguments?: Record<string, unknown> | null });
      default: {
        if (!lease.taskMeta) return [500, { ok: false, error: "env is not initialized; call reset first" }];
        const { a, b } = lease.taskMeta;
        const solved = lease.calls.some((call) => call.name === "add" && call.arguments.a === a && call.arguments.b === b);
        return [200, { ok: true, score: solved ? 1 : 0 }];
      }
    }
  }

  private allocate(body: Record<string, any>): [number, Record<string, unknown>] {
    const taskKey = body.task_key;
    if (!taskKey) return [400, { ok: false, error: "task_key is required" }];
    const requestId = body.request_id;
    const known = requestId ? this.byRequest.get(`${String(taskKey)}\u0000${String(requestId)}`) : undefined;
    if (known && this.leases.has(known)) return [200, { ok: true, lease_id: known, reused: true, worker_idx: 0 }];
    const runs = [...this.leases.values()].filter((lease) => lease.taskKey === String(taskKey)).length;
    const tasks = new Set([...this.leases.values()].map((lease) => lease.taskKey)).size;
    if (runs === 0 && tasks >= this.limits.maxTasks) return [429, { ok: false, error: `Worker at task capacity: ${tasks}/${this.limits.maxTasks}`, code: "TASK_SLOTS_EXHAUSTED" }];
    if (runs >= this.limits.maxRunsPerTask) return [429, { ok: false, error: `Task ${String(taskKey)} at run capacity: ${runs}/${this.limits.maxRunsPerTask}`, code: "RUN_SLOTS_EXHAUSTED" }];
    const leaseId = `0:run-${randomBytes(8).toString("hex")}`;
    this.leases.set(leaseId, { taskKey: String(taskKey), taskMeta: null, calls: [], heartbeats: 0 });
    if (requestId) this.byRequest.set(`${String(taskKey)}\u0000${String(requestId)}`, leaseId);
    return [200, { ok: true, lease_id: leaseId, reused: false, worker_idx: 0 }];
  }

  /** Our environment's reset: a task is its numbers a and b; without them the env raises (the pool's 500). */
  private reset(lease: Lease, body: Record<string, any>): [number, Record<string, unknown>] {
    this.resets.push(body);
    const taskMeta = body.task_meta as Record<string, unknown>;
    lease.taskMeta = null;
    lease.calls = [];
    if (typeof taskMeta.a !== "number" || typeof taskMeta.b !== "number") return [500, { ok: false, error: `task ${String(taskMeta.task_path)} has no numbers a and b` }];
    lease.taskMeta = taskMeta;
    return [200, { ok: true, user_msg: `What is ${taskMeta.a} + ${taskMeta.b}?`, tool_schemas: TOOL_SCHEMAS }];
  }

  /** terminal_env.py exec_tool: an unknown tool or a tool that raises is an observation, never a failed answer. */
  private execTool(lease: Lease, call: { name: string; arguments?: Record<string, unknown> | null }): [number, Record<string, unknown>] {
    if (!lease.taskMeta) return [500, { ok: false, error: "env is not initialized; call reset first" }];
    const args = call.arguments ?? {};
    lease.calls.push({ name: call.name, arguments: args });
    if (call.name !== "add" && call.name !== "echo") return [200, { ok: true, observation: `[TOOL_ERROR] unknown tool: ${call.name}` }];
    try {
      const result = callTool(call.name, args);
      return [200, { ok: true, observation: typeof result === "string" ? result : pythonJson(result) }];
    } catch (error) {
      return [200, { ok: true, observation: `[TOOL_ERROR] ${call.name}: TypeError: ${(error as Error).message}` }];
    }
  }
}
