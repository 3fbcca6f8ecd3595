// The HTTP server of the reference's lease protocol around one Environment: /healthz, /status, /allocate (429 when
// full), /reset, /exec_tool, /heartbeat, /evaluate, /close, every body checked with zod and every answer with `ok`.
// A tool's failure or timeout becomes its observation; the lease table owns slots, idempotency and reaping.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { isOpenclawRlError } from "../contracts/errors.ts";
import { listen } from "../lib/http/listen.ts";
import { sendJson } from "../lib/http/send-json.ts";
import type { Environment } from "./environment.ts";
import { allocateRequestSchema, describeIssue, execToolRequestSchema, leaseRequestSchema, resetRequestSchema } from "./lease-requests.ts";
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
    result = await routes.route(request.method ?? "GET", (request.url ?? "/").split("?")[0]!, () => readJson(request));
  } catch (error) {
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

  async route(method: string, route: string, body: () => Promise<unknown>): Promise<Answer> {
    if (method === "GET" && route === "/healthz") return done();
    if (method === "GET" && route === "/status") return done({ kind: this.environment.kind, leases: this.table.size, capacity: this.slots, reaped: this.table.reaped });
    const handler = this.handlers[route];
    if (!handler) return fail(404, `no route ${method} ${route}`);
    if (method !== "POST") return fail(405, `${route} takes POST`);
    let json: unknown;
    try {
      json = await body();
    } catch (error) {
      return fail(400, `body: ${(error as Error).message}`);
    }
    return handler(json);
  }

  private readonly handlers: Record<string, (json: unknown) => Promise<Answer>> = {
    "/allocate": async (json) => {
      const request = allocateRequestSchema.safeParse(json);
      if (!request.success) return fail(400, describeIssue(request.error));
      const lease = this.table.allocate(request.data.task_key, request.data.request_id);
      return lease === "full" ? fail(429, `no capacity: all ${this.slots} leases are held`) : done({ lease_id: lease.id });
    },
    "/reset": (json) =>
      this.withLease(resetRequestSchema, json, async (lease, request) => {
        await this.table.releaseState(lease);
        try {
          const start = await this.environment.reset(request.task_meta, request.run_ctx);
          lease.state = start.state;
          return done({ user_msg: start.userMessage, tool_schemas: start.toolSchemas });
        } catch (error) {
          return fail(isOpenclawRlError(error) && error.code === "BAD_REQUEST" ? 400 : 500, `reset: ${(error as Error).message}`);
        }
      }),
    "/exec_tool": (json) =>
      this.withEpisode(execToolRequestSchema, json, async (state, request) => {
        const call = { name: request.tool_call.name, arguments: request.tool_call.arguments };
        return done({ observation: await this.observe(this.environment.execTool(state, call), call.name) });
      }),
    "/heartbeat": (json) => this.withLease(leaseRequestSchema, json, async () => done(), false),
    "/evaluate": (json) =>
      this.withEpisode(leaseRequestSchema, json, async (state) => {
        const evaluation = await this.environment.evaluate(state);
        const { score, details } = typeof evaluation === "number" ? { score: evaluation, details: {} } : evaluation;
        return score >= 0 && score <= 1 ? done({ ...details, score }) : fail(500, `evaluate: the score ${score} is not in [0, 1]`);
      }),
    "/close": async (json) => {
      const request = leaseRequestSchema.safeParse(json);
      if (!request.success) return fail(400, describeIssue(request.error));
      return (await this.table.close(request.data.lease_id)) ? done() : fail(404, `unknown lease ${request.data.lease_id}`);
    },
  };

  /** Parses `json`, finds its lease and runs `handle` on it (after the lease's earlier operations, when `serialize`). */
  private async withLease<T extends { lease_id: string }>(
    schema: z.ZodType<T>,
    json: unknown,
    handle: (lease: Lease<State>, request: T) => Promise<Answer>,
    serialize = true,
  ): Promise<Answer> {
    const request = schema.safeParse(json);
    if (!request.success) return fail(400, describeIssue(request.error));
    const lease = this.table.find(request.data.lease_id);
    if (!lease) return fail(404, `unknown lease ${request.data.lease_id} (never allocated, closed, or reaped after its idle TTL)`);
    return serialize ? this.table.serialize(lease, () => handle(lease, request.data)) : handle(lease, request.data);
  }

  /** As withLease, for a lease whose episode has started (/reset answered). */
  private withEpisode<T extends { lease_id: string }>(schema: z.ZodType<T>, json: unknown, handle: (state: State, request: T) => Promise<Answer>): Promise<Answer> {
    return this.withLease(schema, json, (lease, request) =>
      lease.state === undefined ? Promise.resolve(fail(400, `lease ${lease.id} has no episode: call /reset first`)) : handle(lease.state, request),
    );
  }

  /** The tool's observation; a throw or no answer within the tool timeout is an `error: …` observation. */
  private async observe(observation: Promise<string>, tool: string): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`error: ${tool} did not answer within ${this.toolTimeoutMs / 1000} s`), this.toolTimeoutMs);
    });
    try {
      return await Promise.race([observation.catch((error: unknown) => `error: ${tool} failed: ${(error as Error)?.message ?? String(error)}`), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text.trim() === "" ? "{}" : text);
  } catch {
    throw new Error("not JSON");
  }
}
