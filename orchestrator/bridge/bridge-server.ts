// The bridge server: behind a BridgeListener (its address and per-run bearer token), slime's rollout function says
// hello, long-polls for batches (binary frames) and acknowledges them. Owns client sessions, the latest hello and bus
// events; not the socket, not the samples.
import type { IncomingMessage, ServerResponse } from "node:http";
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
  trainerMetricsMessageSchema,
} from "../../contracts/bridge.ts";
import { sleepUnlessAborted } from "../../lib/abortable-sleep.ts";
import type { EventBus } from "../event-bus.ts";
import type { DeliveredBatch, OutstandingBatch, SampleStore, StoreCounts } from "../store/sample-store.ts";
import { assembleBatchFrame } from "./batch-frame.ts";
import { BridgeHttpError, isAuthorized, readJsonBody, sendError, sendJson } from "./bridge-http.ts";
import { BridgeListener, type BridgeListenOptions } from "./bridge-listener.ts";
import { trainerMetricsEvent } from "./trainer-metrics-event.ts";
import type { TrainingPause } from "./training-pause.ts";

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
  /** While paused (evaluation.stop_if_worse) no new batch is handed out: a request waits its long-poll and gets batch-wait. */
  pause?: TrainingPause;
  /** training.max_wait_s in ms: a partial batch goes out once the oldest ready sample has waited this long (0: off). */
  maxWaitMs?: number;
}

export interface BridgeClientId {
  session: string;
  pid: number;
}

export type BridgeStartOptions = Omit<BridgeListenOptions, "recordsDir">;

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
  private listener: BridgeListener | null = null;
  private helloState: (BridgeHello & { session: string }) | null = null;
  /** Long-polls in progress, with the session that asked. */
  private readonly waits = new Map<AbortController, string>();
  private batchesDelivered = 0;
  private batchesAcknowledged = 0;
  private lastBatchAt: number | null = null;
  private lastProgress: BridgeStats["lastProgress"] = null;
  private readonly helloListeners = new Set<(hello: BridgeHello) => void>();
  /** While this says true, no new batch is handed out (the run's base is being evaluated, so it stays untrained). */
  private holding: () => boolean = () => false;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: BridgeServerOptions) {
    this.unsubscribe = options.store.onDropped((dropped) =>
      options.bus.emit({ type: "sample-dropped", sampleId: dropped.id, reason: "stale", detail: dropped.detail, ready: options.store.counts().ready }),
    );
  }

  /** Binds a listener of its own (tests, tools), then serves it. */
  async start(options: BridgeStartOptions): Promise<{ url: string; token: string }> {
    return this.serve(await BridgeListener.open({ ...options, recordsDir: this.options.recordsDir }));
  }

  /** Serves a listener bound earlier (`start` binds it before the launch plan) and writes bridge.json; closes it on close(). */
  async serve(listener: BridgeListener): Promise<{ url: string; token: string }> {
    this.listener = listener;
    listener.serve((request, response) => void this.handle(request, response));
    await listener.publish();
    return { url: listener.url, token: listener.token };
  }

  /** The rollout function's hello (router addresses), or null before it connected. */
  /** Holds new batches while `holding()` is true (continuous evaluation's base: evaluated before anything trains). */
  holdWhile(holding: () => boolean): void {
    this.holding = holding;
  }

  /** Whether new batches are held now (holdWhile). */
  holdingBatches(): boolean {
    return this.holding();
  }

  hello(): BridgeHello | null {
    if (!this.helloState) return null;
    const { routers, pid, at } = this.helloState;
    return { routers, pid, at };
  }

  /** Calls `listener` with every hello from now on (after it is kept, before it is answered). */
  onHello(listener: (hello: BridgeHello) => void): () => void {
    this.helloListeners.add(listener);
    return () => this.helloListeners.delete(listener);
  }

  stats(): BridgeStats {
    return {
      url: this.listener?.url ?? null,
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
      if (!isAuthorized(request, this.listener?.token ?? "")) throw new BridgeHttpError(401, "UNAUTHORIZED", "missing or wrong bearer token");
      switch (request.url) {
        case BRIDGE_PATHS.hello:
          return this.takeHello(await readJsonBody(request, helloMessageSchema), response);
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
        case BRIDGE_PATHS.metrics: {
          const message = await readJsonBody(request, trainerMetricsMessageSchema);
          this.options.bus.emit(trainerMetricsEvent(message));
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

  private takeHello(message: { session: string; pid: number; routers: BridgeHello["routers"] }, response: ServerResponse): void {
    // a new client session means the old one is gone: its long-polls still open are answered now (409), so none of
    // them is handed a batch after this hello. What it held stays out until the new session's first batch request
    // says which of it was trained (see settleEarlierSessions).
    const previous = this.helloState;
    if (previous?.session !== message.session) {
      for (const [abort, session] of this.waits) if (session !== message.session) abort.abort(SESSION_REPLACED);
    }
    this.helloState = { session: message.session, pid: message.pid, routers: message.routers, at: Date.now() };
    // (not on the first hello this orchestrator sees: after its own restart the same slime says hello again)
    if (previous && previous.session !== message.session) {
      this.options.onClientReplaced?.({ previous: { session: previous.session, pid: previous.pid }, current: { session: message.session, pid: message.pid } });
    }
    const hello = this.hello()!;
    for (const listener of this.helloListeners) {
      try {
        listener(hello);
      } catch (error) {
        this.options.bus.emit({ type: "error", source: "bridge", code: "INTERNAL", message: `following the hello of pid ${hello.pid} failed: ${(error as Error).message}` });
      }
    }
    sendJson(response, 200, { version: BRIDGE_VERSION, type: "hello-ok", currentVersion: this.options.store.staleness.current() });
  }

  private async onBatch(message: BatchRequest, request: IncomingMessage, response: ServerResponse): Promise<void> {
    // a client that a newer session replaced (a slime that was restarted, yet still asks) gets no batch
    if (this.helloState && this.helloState.session !== message.session) throw this.replaced(message.session);
    // The client acknowledges a batch once the trainer has provably trained it, so it may still hold one or two
    // (it names them); any other unacknowledged batch of its own was lost on the way (its answer never arrived).
    const holding = new Set(message.holding ?? []);
    await this.settleEarlierSessions(message);
    const again = this.options.store.outstanding().find((batch) => batch.rolloutId === message.rolloutId && batch.session === message.session);
    await this.releaseBatches((batch) => batch.session === message.session && !holding.has(batch.batchId) && (batch.batchId !== again?.batchId || batch.size > message.size));
    // a partial batch (training.max_wait_s) is shorter than the size asked for, and still the same rollout's
    if (again && again.size <= message.size) return this.send(response, (await this.options.store.handOutAgain(again.batchId, message.session))!);
    const abort = new AbortController();
    const onClose = () => abort.abort();
    response.on("close", onClose);
    this.waits.set(abort, message.session);
    try {
      const startedAt = Date.now();
      const resumed = (await this.options.pause?.waitUntilResumed(message.waitMs, abort.signal)) ?? true;
      const released = resumed && (await this.waitWhileHolding(startedAt + message.waitMs, abort.signal));
      const maxWaitMs = this.options.maxWaitMs ?? 0;
      const ready = released ? await this.options.store.waitForReady(message.size, Math.max(0, message.waitMs - (Date.now() - startedAt)), abort.signal, maxWaitMs) : 0;
      if (abort.signal.reason === SESSION_REPLACED) throw this.replaced(message.session);
      if (abort.signal.aborted) return;
      // (paused meanwhile: no new batch; a batch handed out before the pause was handed out again above)
      // a full batch when one can be made; else, once the oldest sample has waited training.max_wait_s, what is ready
      const paused = (this.options.pause?.paused() ?? false) || this.holding();
      const full = !paused && ready >= message.size ? await this.options.store.deliver(message.size, message.rolloutId, message.session) : null;
      const partial = !full && !paused && this.options.store.partialDue(maxWaitMs);
      const batch = full ?? (partial ? await this.options.store.deliverPartial(message.size, message.rolloutId, message.session) : null);
      if (batch && abort.signal.reason === SESSION_REPLACED) {
        await this.release(batch.batchId, batch.seqs.length); // replaced while its batch was being read: not handed out
        throw this.replaced(message.session);
      }
      if (!batch) {
        const { ready: readyNow } = this.options.store.counts();
        // enough samples, yet no batch within the per-session share: said once per wait, so the screens can say why
        if (readyNow >= message.size && !paused) this.options.bus.emit({ type: "batch-held", ready: readyNow, size: message.size, ...(this.options.store.held(message.size) ?? this.options.store.share(message.size)) });
        sendJson(response, 200, { version: BRIDGE_VERSION, type: "batch-wait", ready: readyNow, size: message.size, ...(this.options.pause?.paused() ? { paused: true } : {}) });
        return;
      }
      this.send(response, batch);
    } finally {
      this.waits.delete(abort);
      response.off("close", onClose);
    }
  }

  /** Waits while batches are held, until `deadline` (ms epoch); true once they are not. */
  private async waitWhileHolding(deadline: number, signal: AbortSignal): Promise<boolean> {
    while (this.holding()) {
      const left = deadline - Date.now();
      if (left <= 0 || !(await sleepUnlessAborted(Math.min(250, left), signal))) return false;
    }
    return true;
  }

  private send(response: ServerResponse, batch: DeliveredBatch): void {
    const { frame, summary } = assembleBatchFrame(batch, this.options.store.staleness);
    response.writeHead(200, { "content-type": BATCH_FRAME_CONTENT_TYPE, "content-length": frame.length });
    response.end(frame);
    this.batchesDelivered += 1;
    this.lastBatchAt = Date.now();
    this.options.bus.emit({ type: "batch-delivered", rolloutId: batch.rolloutId, batchId: batch.batchId, size: batch.seqs.length, ...summary, ...(batch.composition ? { composition: batch.composition } : {}), ready: this.options.store.counts().ready });
  }

  /**
   * Batches still out to an earlier client session (a trainer that was restarted, or replaced), settled by the rollout
   * id the new session asks for: slime resumes after its last checkpoint, so an earlier rollout was trained into that
   * checkpoint (acknowledged now, never handed out again), and the same rollout is handed to the new session again.
   * Later rollouts stay out until the new session asks for them.
   */
  private async settleEarlierSessions(message: BatchRequest): Promise<void> {
    for (const batch of this.options.store.outstanding()) {
      if (batch.session === message.session) continue;
      if (batch.rolloutId < message.rolloutId) {
        const acknowledged = await this.options.store.acknowledge(batch.batchId);
        if (acknowledged && !acknowledged.already) this.acknowledged(batch.rolloutId, batch.batchId);
      } else if (batch.rolloutId === message.rolloutId) {
        await this.options.store.handOutAgain(batch.batchId, message.session); // now the new session's: handed out below
      }
    }
  }

  private async onAck(message: { session: string; rolloutId: number; batchId: string }, response: ServerResponse): Promise<void> {
    const result = await this.options.store.acknowledge(message.batchId);
    if (!result) {
      throw new BridgeHttpError(409, "BATCH_UNKNOWN", `batch ${message.batchId} is not outstanding (handed out again after a reconnect or restart); fetch a new batch`);
    }
    if (!result.already) this.acknowledged(message.rolloutId, message.batchId);
    sendJson(response, 200, { version: BRIDGE_VERSION, type: "ack-ok", batchId: message.batchId, already: result.already });
  }

  private replaced(session: string): BridgeHttpError {
    const current = this.helloState;
    return new BridgeHttpError(409, "SESSION_REPLACED", `session ${session} was replaced by a newer client (session ${current?.session}, pid ${current?.pid}); this one gets no more batches`);
  }

  private acknowledged(rolloutId: number, batchId: string): void {
    this.batchesAcknowledged += 1;
    this.options.bus.emit({ type: "batch-acknowledged", rolloutId, batchId });
  }

  private async releaseBatches(matches: (batch: OutstandingBatch) => boolean): Promise<void> {
    for (const batch of this.options.store.outstanding()) if (matches(batch)) await this.release(batch.batchId, batch.size);
  }

  /** Gives a handed-out batch back to the store (its samples ready again) and says so on the bus. */
  private async release(batchId: string, size: number): Promise<void> {
    if (await this.options.store.release(batchId)) this.options.bus.emit({ type: "batch-released", batchId, size, ready: this.options.store.counts().ready });
  }

  async close(): Promise<void> {
    this.unsubscribe();
    for (const abort of this.waits.keys()) abort.abort();
    await this.listener?.close();
  }
}
