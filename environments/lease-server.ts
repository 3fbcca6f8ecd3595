// The HTTP server of the reference's lease protocol around one Environment, answering as a client of the reference's
// terminal router in front of one pool sees it (every case, with where it comes from, in
// tests/fixtures/terminal-rl/lease-protocol-answers.json): /healthz, /status, /allocate, /reset, /exec_tool, /heartbeat,
// /evaluate, /close. A tool's failure or timeout becomes its observation; the lease table owns slots, idempotency, reaping.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { listen } from "../lib/http/listen.ts";
import { sendJson } from "../lib/http/send-json.ts";
import type { Environment } from "./environment.ts";
import { encodeLeaseId, unknownLeaseError } from "./lease-id.ts";
import { allocateRequestSchema, checkBody, checkLeaseId, execToolRequestSchema, jsonPayload, resetRequestSchema } from "./lease-requests.ts";
import { LeaseTable, type Lease } from "./lease-table.ts";
export const leaseServerOptionsSchema = z
  .object({
    host: z.string().default("127.0.0.1"),
    port: z.number().int().min(0).max(65535).default(0).describe("0 picks a free port."),
    slots: z.number().int().positive().default(16).describe("Leases held at once; /allocate answers 429 past it."),
    leaseTtlS: z.number().positive().default(600).describe("An idle lease is reaped after this long (the reference: 600 s)."),
    sweepS: z.number().positive().default(60).describe("How often idle leases are looked for (the reference: 60 s)."),
    requestTtlS: z.number().positive().default(300).describe("How long a request id keeps its lease for a retried /allocate."),
    toolTimeoutS: z.number().positive().default(120).describe("A tool call that has not answered by then gets an error observation."),
  })
  .strict();

export type LeaseServerOptionsInput = z.input<typeof leaseServerOptionsSchema>;

export interface RunningLeaseServer {
  url: string;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const fail = (status: number, error: string): Answer => ({ status, body: { ok: false, error } });
const done = (body: Record<string, unknown> = {}): Answer => ({ status: 200, body: { ok: true, ...body } });
/** A lease whose /reset has not succeeded has no environment to call; the reference's words for that. */
const NOT_RESET = "env is not initialized; call reset first";

export async function startLeaseServer<State>(environment: Environment<State>, input: LeaseServerOptionsInput = {}): Promise<RunningLeaseServer> {
  const options = leaseServerOptionsSchema.parse(input);
  const table = new LeaseTable<State>({
    slots: options.slots,
    leaseTtlMs: options.leaseTtlS * 1000,
    requestTtlMs: options.requestTtlS * 1000,
    release: (state) => environment.close(state),
  });
  const routes = new LeaseRoutes(environment, table, options.toolTimeoutS * 1000, options.slots);
  const server = createServer((request, response) => void answer(routes, request, response));
  await listen(server, { port: options.port, host: options.host, key: "environment.port", hint: "pick another port, or 0 for a free one" });
  const sweep = setInterval(() => void table.reapIdle(), options.sweepS * 1000).unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
    async close() {
      clearInterval(sweep);
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
      await table.closeAll();
    },
  };
}

async function answer<State>(routes: LeaseRoutes<State>, request: IncomingMessage, response: ServerResponse): Promise<void> {
  let result: Answer;
  try {
    result = await routes.route(request.method ?? "GET", (request.url ?? "/").split("?")[0]!, () => readBody(request));
  } catch (error) {
    // the reference's routes answer any exception as 500 {ok: false, error: str(exc)}
    result = fail(500, (error as Error).message);
  }
  sendJson(response, result.status, result.body);
}

class LeaseRoutes<State> {
  constructor(
    private readonly environment: Environment<State>,
    private readonly table: LeaseTable<State>,
    private readonly toolTimeoutMs: number,
    private readonly slots: number,
  ) {}

  async route(method: string, route: string, body: () => Promise<string>): Promise<Answer> {
    const handler = this.handlers[route];
    const get = route === "/healthz" || route === "/status";
    // FastAPI's own answers for a path it has no route for, and for a route called with another method
    if (!handler && !get) return { status: 404, body: { detail: "Not Found" } };
    if (method !== (get ? "GET" : "POST")) return { status: 405, body: { detail: "Method Not Allowed" } };
    if (route === "/healthz") return done();
    // not theirs (the router's {ok, num_workers, workers}, over the pool's {ok, pool}): one server, no workers to list
    if (route === "/status") return done({ kind: this.environment.kind, leases: this.table.size, capacity: this.slots, reaped: this.table.reaped });
    let text: string;
    try {
      text = await body();
    } catch (error) {
      // theirs reads a body of any size; ours stops at MAX_BODY_BYTES and says so, in their error shape
      return fail(400, `body: ${(error as Error).message}`);
    }
    return handler!(jsonPayload(text));
  }

  private readonly handlers: Record<string, (payload: Record<string, unknown>) => Promise<Answer>> = {
    "/allocate": async (payload) => {
      const request = checkBody(allocateRequestSchema, payload);
      if (!request.ok) return fail(400, request.error);
      const allocated = this.table.allocate(request.value.task_key, request.value.request_id);
      // their pool counts task keys and runs per key (TASK_/RUN_SLOTS_EXHAUSTED); ours counts
      // leases in all, so its message says that, under their status, keys and the code of a run slot not found
      if (allocated === "full") return { status: 429, body: { ok: false, error: `Worker at lease capacity: ${this.table.size}/${this.slots}`, code: "RUN_SLOTS_EXHAUSTED" } };
      return done({ lease_id: encodeLeaseId(allocated.lease.id), reused: allocated.reused, worker_idx: 0 });
    },
    "/reset": (payload) =>
      this.withLease(payload, resetRequestSchema, async (lease, request) => {
        await this.table.releaseState(lease);
        // an environment that cannot start the task throws, which answers 500 as theirs does
        const start = await this.environment.reset(request.task_meta, request.run_ctx);
        lease.state = start.state;
        return done({ user_msg: start.userMessage, tool_schemas: start.toolSchemas });
      }),
    "/exec_tool": (payload) =>
      this.withEpisode(payload, execToolRequestSchema, async (state, request) => {
        const call = { name: request.tool_call.name, arguments: request.tool_call.arguments };
        return done({ observation: await this.observe(this.environment.execTool(state, call), call.name) });
      }),
    "/heartbeat": (payload) => this.withLease(payload, z.object({}), async () => done(), false),
    "/evaluate": (payload) =>
      this.withEpisode(payload, z.object({}), async (state) => {
        const evaluation = await this.environment.evaluate(state);
        const { score, details } = typeof evaluation === "number" ? { score: evaluation, details: {} } : evaluation;
        // theirs passes any float on; ours refuses a score the protocol's clients cannot use, as a failed evaluation
        return score >= 0 && score <= 1 ? done({ ...details, score }) : fail(500, `evaluate: the score ${score} is not in [0, 1]`);
      }),
    "/close": async (payload) => {
      const poolLease = checkLeaseId(payload);
      if (!poolLease.ok) return fail(400, poolLease.error);
      return done({ found: await this.table.close(poolLease.value) });
    },
  };

  /**
   * Checks the lease id (the router's checks), then the rest of the body (the pool's), then finds the lease: so a bad
   * body on an unknown lease is a 400, and an unknown lease a 500 with the pool's KeyError. Runs `handle` after the
   * lease's earlier operations when `serialize`.
   */
  private async withLease<S extends z.ZodType>(
    payload: Record<string, unknown>,
    schema: S,
    handle: (lease: Lease<State>, request: z.infer<S>) => Promise<Answer>,
    serialize = true,
  ): Promise<Answer> {
    const poolLease = checkLeaseId(payload);
    if (!poolLease.ok) return fail(400, poolLease.error);
    const request = checkBody(schema, payload);
    if (!request.ok) return fail(400, request.error);
    const lease = this.table.find(poolLease.value);
    if (!lease) return fail(500, unknownLeaseError(poolLease.value));
    return serialize ? this.table.serialize(lease, () => handle(lease, request.value)) : handle(lease, request.value);
  }

  /** As withLease, for a lease whose episode has started (/reset answered). */
  private withEpisode<S extends z.ZodType>(payload: Record<string, unknown>, schema: S, handle: (state: State, request: z.infer<S>) => Promise<Answer>): Promise<Answer> {
    return this.withLease(payload, schema, (lease, request) => (lease.state === undefined ? Promise.resolve(fail(500, NOT_RESET)) : handle(lease.state, request)));
  }

  /** The tool's observation; a throw, or no answer within the tool timeout, is "[TOOL_ERROR] <tool>: <error>: <message>" as theirs writes it. */
  private async observe(observation: Promise<string>, tool: string): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`[TOOL_ERROR] ${tool}: TimeoutError: no answer within ${this.toolTimeoutMs / 1000} s`), this.toolTimeoutMs);
    });
    const failed = (error: unknown) => `[TOOL_ERROR] ${tool}: ${error instanceof Error ? `${error.name}: ${error.message}` : `Error: ${String(error)}`}`;
    try {
      return await Promise.race([observation.catch(failed), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The body's text, refused past MAX_BODY_BYTES. */
async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
