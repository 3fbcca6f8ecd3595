// The loopback admin server: GET /status (JSON), a ws event stream at /events (event-stream.ts: recent history
// replayed on connect, then live RunEvents), bearer-token auth, POST actions (POST /training/resume) and mount() for
// extra route handlers (the dashboard).
// It binds 127.0.0.1 only and knows nothing of how the status is computed. Every socket it holds has an 'error'
// listener: a bad client is dropped and reported as an `error` event, never a crash of the orchestrator.
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import type { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { EVENT_VERSION } from "../../contracts/events.ts";
import type { EventBus } from "../event-bus.ts";
import { EventStream, type EventStreamOptions } from "./event-stream.ts";
import type { StatusSnapshot } from "../../contracts/status.ts";
import { sendJson } from "../../lib/http/send-json.ts";
import { listen } from "../../lib/http/listen.ts";

/** A mounted handler returns true when it answered the request; it does its own auth (a browser page sends ?token=). */
export type AdminRouteHandler = (request: IncomingMessage, response: ServerResponse) => boolean | Promise<boolean>;

export interface AdminServerOptions {
  bus: EventBus;
  token: string;
  snapshot: () => StatusSnapshot;
  /**
   * POST routes behind the token, by path; each answers 200 with what it returns (POST /training/resume). One with a
   * `body` schema is handed its JSON body, parsed (at most 64 KiB; a body that is not JSON or fails the schema is a 400
   * naming the field).
   */
  actions?: Record<string, AdminAction>;
  /** Bounds of the ws event stream (replay length, client limit, unread-output cap). */
  stream?: Partial<EventStreamOptions>;
}

export interface AdminAction {
  body?: z.ZodType;
  run(body: unknown): unknown;
}

const MAX_ACTION_BODY_BYTES = 64 * 1024;

export class AdminServer {
  private readonly server: Server;
  private readonly sockets: WebSocketServer;
  private readonly stream: EventStream;
  private readonly mounted: AdminRouteHandler[] = [];
  private readonly expectedToken: Buffer;
  private unsubscribe: (() => void) | null = null;
  private address: { host: string; port: number } | null = null;

  constructor(private readonly options: AdminServerOptions) {
    if (options.token.length < 16) throw new OpenclawRlError("INTERNAL", "the admin token is too short");
    this.expectedToken = digest(options.token);
    this.sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
    this.stream = new EventStream((limit) => options.bus.recent(limit), (message) => this.report(message), options.stream);
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) sendJsonFresh(response, 500, { error: { code: "INTERNAL", message: (error as Error).message } });
        else response.end();
      });
    });
    this.server.requestTimeout = 30_000;
    this.server.on("upgrade", (request, socket, head) => {
      // node leaves an upgraded socket without an error listener: a reset during the refusal or the handshake
      // would otherwise end the process
      socket.on("error", () => socket.destroy());
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      if (url.pathname !== "/events" || !this.authorized(request, url)) {
        socket.end("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n");
        return;
      }
      this.sockets.handleUpgrade(request, socket, head, (client) => this.stream.attach(client));
    });
  }

  /** Adds a route handler tried before the built-in routes (e.g. the dashboard at /dashboard). */
  mount(handler: AdminRouteHandler): void {
    this.mounted.push(handler);
  }

  async listen(port: number): Promise<{ host: string; port: number; url: string }> {
    await listen(this.server, { port, host: "127.0.0.1", key: "proxy.admin_port", hint: "choose another with --set proxy.admin_port=<port>" });
    // a later server error (an accept that fails) is reported, not thrown out of the process
    this.server.on("error", (error) => this.report(`admin server: ${error.message}`));
    const address = this.server.address() as AddressInfo;
    this.address = { host: "127.0.0.1", port: address.port };
    this.unsubscribe = this.options.bus.subscribe((event) => this.stream.broadcast(event));
    return { ...this.address, url: `http://127.0.0.1:${address.port}` };
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    // clients already closing (refused, too slow) may never answer their close frame
    for (const client of this.sockets.clients) if (client.readyState === client.CLOSING) client.terminate();
    this.stream.close();
    this.sockets.close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    for (const handler of this.mounted) if (await handler(request, response)) return;
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    if (path === "/healthz") return sendJsonFresh(response, 200, { ok: true });
    if (!this.authorized(request, url)) return sendJsonFresh(response, 401, { error: { code: "UNAUTHORIZED", message: "missing or wrong admin token (see <run>/admin-token)" } });
    if (path === "/status" && request.method === "GET") return sendJsonFresh(response, 200, this.options.snapshot());
    const action = this.options.actions?.[path];
    if (action && request.method === "POST") {
      const body = action.body ? await readActionBody(request, action.body) : { ok: true as const, value: undefined };
      if (!body.ok) return sendJsonFresh(response, 400, { error: { code: "BAD_REQUEST", message: `POST ${path}: ${body.message}` } });
      return sendJsonFresh(response, 200, await action.run(body.value));
    }
    if (path === "/events/recent" && request.method === "GET") {
      const limit = Math.min(5000, Math.max(1, Number(url.searchParams.get("limit") ?? 200) || 200));
      return sendJsonFresh(response, 200, { version: EVENT_VERSION, events: this.options.bus.recent(limit) });
    }
    sendJsonFresh(response, 404, { error: { code: "NOT_FOUND", message: `no route ${request.method} ${path}` } });
  }

  private report(message: string): void {
    this.options.bus.emit({ type: "error", source: "admin", code: "ADMIN_CLIENT", message });
  }

  private authorized(request: IncomingMessage, url: URL): boolean {
    const header = request.headers.authorization ?? "";
    const given = header.startsWith("Bearer ") ? header.slice(7).trim() : (url.searchParams.get("token") ?? "");
    return given.length > 0 && timingSafeEqual(digest(given), this.expectedToken);
  }
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** The admin API's answers: never cached (they carry the run's live state). */
function sendJsonFresh(response: ServerResponse, status: number, body: unknown): void {
  sendJson(response, status, body, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
}

/** A POST action's body, bounded and parsed by its schema; what is wrong with it otherwise. */
async function readActionBody(request: IncomingMessage, schema: z.ZodType): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_ACTION_BODY_BYTES) return { ok: false, message: `the body is over ${MAX_ACTION_BODY_BYTES} bytes` };
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return { ok: false, message: "the body is not JSON" };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, message: `${issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue?.message ?? "invalid body"}` };
}
