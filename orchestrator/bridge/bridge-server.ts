// The bridge server: HTTP (loopback, or the head address on several nodes) with a per-run bearer token; slime's
// rollout function says hello, long-polls for batches (binary frames) and acknowledges them. Owns client sessions and
// bus events, not the samples.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";
import {
  ackMessageSchema,
  batchRequestSchema,
  type BatchRequest,
  BATCH_FRAME_CONTENT_TYPE,
  type BridgeHello,
  BRIDGE_PATHS,
  BRIDGE_VERSION,
  helloMessageSchema,
  progressMessageSchema,
  type ProgressMessage,
} from "../../contracts/bridge.ts";
import type { EventBus } from "../event-bus.ts";
import { replaceDurably } from "../../lib/durable-file.ts";
import type { SampleStore, StoreCounts } from "../store/sample-store.ts";
import { assembleBatchFrame } from "./batch-frame.ts";
import { BridgeHttpError, isAuthorized, readJsonBody, sendError, sendJson } from "./bridge-http.ts";

export interface BridgeServerOptions {
  store: SampleStore;
  bus: EventBus;
  /** The run folder: bridge.json goes here. */
  recordsDir: string;
  /**
   * A hello from a new session replaced an earlier client's: a new slime process (slime started again), whose weight
   * versions count from 0 again. Called before the hello is answered, so before the new client can ask for a batch.
   */
  onClientReplaced?: (change: { previous: BridgeClientId; current: BridgeClientId }) => void;
}

export interface BridgeClientId {
  session: string;
  pid: number;
}

export interface BridgeStartOptions {
  /** Loopback on one node; the head node's address when slime's rollout manager may run on another node. */
  host: string;
  port: number;
  /** With port 0, rebind the port and token of a previous bridge.json in recordsDir (slime's env still holds them). */
  reuseEndpoint?: boolean;
  /** How long an idle kept-alive connection stays open (default 5 s; the Python client reopens a closed one silently). */
  keepAliveTimeoutMs?: number;
}

/**
 * Where the bridge listens: loopback on one node; on several, the head node's address (cluster.head_address), since
 * slime's rollout manager is a Ray actor that may be scheduled on any node. Every request needs the run's token.
 */
export function bridgeHost(recipe: { cluster: { nodes: number; head_address: string } }): string {
  return recipe.cluster.nodes > 1 ? recipe.cluster.head_address : "127.0.0.1";
}

export interface BridgeStats {
  url: string | null;
  counts: StoreCounts;
  currentVersion: number;
  batchesDelivered: number;
  batchesAcknowledged: number;
  lastBatchAt: number | null;
  lastProgress: (Omit<ProgressMessage, "version" | "type"> & { at: number }) | null;
  client: { session: string; pid: number } | null;
}

/** Why a long-poll was ended: a hello from a newer session replaced the one that asked. */
const SESSION_REPLACED = "session-replaced";

export class BridgeServer {
  private server: Server | null = null;
  private url: string | null = null;
  private token = "";
  private helloState: (BridgeHello & { session: string }) | null = null;
  private readonly batchSessions = new Map<string, string>();
  /** Long-polls in progress, with the session that asked. */
  private readonly waits = new Map<AbortController, string>();
  private batchesDelivered = 0;
  private batchesAcknowledged = 0;
  private lastBatchAt: number | null = null;
  private lastProgress: BridgeStats["lastProgress"] = null;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: BridgeServerOptions) {
    this.unsubscribe = options.store.onDropped((dropped) =>
      options.bus.emit({ type: "sample-dropped", sampleId: dropped.id, reason: "stale", detail: dropped.detail }),
    );
  }

  async start(options: BridgeStartOptions): Promise<{ url: string; token: string }> {
    const previous = options.port === 0 && options.reuseEndpoint !== false ? await this.previousEndpoint() : null;
    const server = createServer((request, response) => void this.handle(request, response));
    server.requestTimeout = 120_000;
    server.headersTimeout = 30_000;
    server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
    let port = options.port;
    this.token = randomBytes(32).toString("hex");
    if (previous && (await listen(server, options.host, previous.port).then(() => true, () => false))) {
      this.token = previous.token;
      port = previous.port;
    } else {
      await listen(server, options.host, port);
      port = (server.address() as AddressInfo).port;
    }
    this.server = server;
    this.url = `http://${options.host}:${port}`;
    await replaceDurably(join(this.options.recordsDir, "bridge.json"), this.options.recordsDir, JSON.stringify({ url: this.url, token: this.token }) + "\n", 0o600);
    return { url: this.url, token: this.token };
  }

  private async previousEndpoint(): Promise<{ port: number; token: string } | null> {
    try {
      const saved = JSON.parse(await readFile(join(this.options.recordsDir, "bridge.json"), "utf8")) as { url?: unknown; token?: unknown };
      if (typeof saved.url !== "string" || typeof saved.token !== "string") return null;
      const port = Number(new URL(saved.url).port);
      return port > 0 ? { port, token: saved.token } : null;
    } catch {
      return null;
    }
  }

  /** The rollout function's hello (router addresses), or null before it connected. */
  hello(): BridgeHello | null {
    if (!this.helloState) return null;
    const { routers, pid, at } = this.helloState;
    return { routers, pid, at };
  }

  stats(): BridgeStats {
    return {
      url: this.url,
      counts: this.options.store.counts(),
      currentVersion: this.options.store.staleness.current(),
      batchesDelivered: this.batchesDelivered,
      batchesAcknowledged: this.batchesAcknowledged,
      lastBatchAt: this.lastBatchAt,
      lastProgress: this.lastProgress,
      client: this.helloState ? { session: this.helloState.session, pid: this.helloState.pid } : null,
    };
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      if (request.method !== "POST") throw new BridgeHttpError(405, "METHOD", "the bridge takes POST only");
      if (!isAuthorized(request, this.token)) throw new BridgeHttpError(401, "UNAUTHORIZED", "missing or wrong bearer token");
      switch (request.url) {
        case BRIDGE_PATHS.hello:
          return this.onHello(await readJsonBody(request, helloMessageSchema), response);
        case BRIDGE_PATHS.batch:
          return await this.onBatch(await readJsonBody(request, batchRequestSchema), request, response);
        case BRIDGE_PATHS.ack:
          return await this.onAck(await readJsonBody(request, ackMessageSchema), response);
        case BRIDGE_PATHS.progress: {
          const { version: _version, type: _type, ...progress } = await readJsonBody(request, progressMessageSchema);
          this.lastProgress = { ...progress, at: Date.now() };
          response.writeHead(204).end();
          return;
        }
        default:
          throw new BridgeHttpError(404, "NOT_FOUND", `no bridge endpoint ${request.url ?? ""}`);
      }
    } catch (error) {
      if (error instanceof BridgeHttpError) sendError(response, error.status, error.code, error.message);
      else sendError(response, 500, "INTERNAL", error instanceof Error ? error.message : String(error));
    }
  }

  private onHello(message: { session: string; pid: number; routers: BridgeHello["routers"] }, response: ServerResponse): void {
    // a new client session means the old one is gone: what it held unacknowledged goes back to ready
    const previous = this.helloState;
    if (previous?.session !== message.session) {
      // its long-polls still open are answered now (409), so none of them is handed a batch after this hello
      for (const [abort, session] of this.waits) if (session !== message.session) abort.abort(SESSION_REPLACED);
      this.releaseBatches((session) => session !== message.session);
    }
    this.helloState = { session: message.session, pid: message.pid, routers: message.routers, at: Date.now() };
    // (not on the first hello this orchestrator sees: after its own restart the same slime says hello again)
    if (previous && previous.session !== message.session) {
      this.options.onClientReplaced?.({ previous: { session: previous.session, pid: previous.pid }, current: { session: message.session, pid: message.pid } });
    }
    sendJson(response, 200, { version: BRIDGE_VERSION, type: "hello-ok", currentVersion: this.options.store.staleness.current() });
  }

  private async onBatch(message: BatchRequest, request: IncomingMessage, response: ServerResponse): Promise<void> {
    // a client that a newer session replaced (a slime that was restarted, yet still asks) gets no batch
    if (this.helloState && this.helloState.session !== message.session) throw this.replaced(message.session);
    // The client acknowledges a batch once the trainer has provably trained it, so it may still hold one or two
    // (it names them); any other unacknowledged batch of its own was lost on the way (its answer never arrived).
    const holding = new Set(message.holding ?? []);
    this.releaseBatches((session, batchId) => session === message.session && !holding.has(batchId));
    const abort = new AbortController();
    const onClose = () => abort.abort();
    response.on("close", onClose);
    this.waits.set(abort, message.session);
    try {
      const ready = await this.options.store.waitForReady(message.size, message.waitMs, abort.signal);
      if (abort.signal.reason === SESSION_REPLACED) throw this.replaced(message.session);
      if (abort.signal.aborted) return;
      const batch = ready >= message.size ? await this.options.store.deliver(message.size, message.rolloutId) : null;
      if (batch && abort.signal.reason === SESSION_REPLACED) {
        this.options.store.release(batch.batchId); // replaced while its batch was being read: not handed out
        throw this.replaced(message.session);
      }
      if (!batch) {
        sendJson(response, 200, { version: BRIDGE_VERSION, type: "batch-wait", ready: this.options.store.counts().ready, size: message.size });
        return;
      }
      this.batchSessions.set(batch.batchId, message.session);
      const { frame, summary } = assembleBatchFrame(batch, this.options.store.staleness);
      response.writeHead(200, { "content-type": BATCH_FRAME_CONTENT_TYPE, "content-length": frame.length });
      response.end(frame);
      this.batchesDelivered += 1;
      this.lastBatchAt = Date.now();
      this.options.bus.emit({ type: "batch-delivered", rolloutId: batch.rolloutId, batchId: batch.batchId, size: batch.seqs.length, ...summary });
    } finally {
      this.waits.delete(abort);
      response.off("close", onClose);
    }
  }

  private async onAck(message: { session: string; rolloutId: number; batchId: string }, response: ServerResponse): Promise<void> {
    const result = await this.options.store.acknowledge(message.batchId);
    if (!result) {
      throw new BridgeHttpError(409, "BATCH_UNKNOWN", `batch ${message.batchId} is not outstanding (handed out again after a reconnect or restart); fetch a new batch`);
    }
    this.batchSessions.delete(message.batchId);
    if (!result.already) {
      this.batchesAcknowledged += 1;
      this.options.bus.emit({ type: "batch-acknowledged", rolloutId: message.rolloutId, batchId: message.batchId });
    }
    sendJson(response, 200, { version: BRIDGE_VERSION, type: "ack-ok", batchId: message.batchId, already: result.already });
  }

  private replaced(session: string): BridgeHttpError {
    const current = this.helloState;
    return new BridgeHttpError(409, "SESSION_REPLACED", `session ${session} was replaced by a newer client (session ${current?.session}, pid ${current?.pid}); this one gets no more batches`);
  }

  private releaseBatches(matches: (session: string, batchId: string) => boolean): void {
    for (const [batchId, session] of this.batchSessions) {
      if (!matches(session, batchId)) continue;
      this.options.store.release(batchId);
      this.batchSessions.delete(batchId);
    }
  }

  async close(): Promise<void> {
    this.unsubscribe();
    for (const abort of this.waits.keys()) abort.abort();
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      if (error.code === "EADDRNOTAVAIL") {
        // only a multi-node bridge binds anything but loopback: its address comes from the recipe
        return reject(
          new OpenclawRlError("RECIPE_INVALID", `the bridge cannot listen on ${host}: no network interface of this machine has that address`, {
            path: "cluster.head_address",
            hint: "run `openclaw-rl start` on the head node, and set cluster.head_address to its IP as the other nodes reach it",
            cause: error,
          }),
        );
      }
      reject(error);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}
