// The dashboard's live stream: Server-Sent Events to each open page, a snapshot on connect, then one shared
// delta per tick while anything changed. Bounded: few clients, a write-buffer cap, timers only while needed.
import type { ServerResponse } from "node:http";
import type { DashboardHistory } from "./dashboard-history.ts";

export interface DashboardStreamOptions {
  /** Shortest time between two deltas. */
  tickMs: number;
  heartbeatMs: number;
  maxClients: number;
  /** A client whose unsent output exceeds this is cut off (it reconnects and gets a fresh snapshot). */
  maxBufferedBytes: number;
}

export const defaultDashboardStreamOptions: DashboardStreamOptions = {
  tickMs: 250,
  heartbeatMs: 15_000,
  maxClients: 16,
  maxBufferedBytes: 4 * 1024 * 1024,
};

export class DashboardStream {
  private readonly clients = new Set<ServerResponse>();
  private tickTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private dirty = false;
  private readonly options: DashboardStreamOptions;

  constructor(
    private readonly history: DashboardHistory,
    options: Partial<DashboardStreamOptions> = {},
  ) {
    this.options = { ...defaultDashboardStreamOptions, ...options };
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Opens an event stream on this response; false (and a 503) when too many pages are open. */
  attach(response: ServerResponse): boolean {
    if (this.clients.size >= this.options.maxClients) {
      response.writeHead(503, { "Content-Type": "application/json", "Retry-After": "5" });
      response.end(JSON.stringify({ error: `at most ${this.options.maxClients} dashboard pages may be open at once` }));
      return false;
    }
    response.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    });
    response.write(`retry: 2000\n\n`);
    this.send(response, "snapshot", JSON.stringify(this.history.snapshot()));
    this.clients.add(response);
    response.on("close", () => this.detach(response));
    if (!this.heartbeatTimer) {
      this.heartbeatTimer = setInterval(() => this.broadcastRaw(`: heartbeat\n\n`), this.options.heartbeatMs);
      this.heartbeatTimer.unref();
    }
    return true;
  }

  /** Something changed: a delta goes out within one tick (deltas are computed even with no page open). */
  markChanged(): void {
    this.dirty = true;
    if (this.tickTimer) return;
    this.tickTimer = setTimeout(() => this.tick(), this.options.tickMs);
    this.tickTimer.unref();
  }

  close(): void {
    if (this.tickTimer) clearTimeout(this.tickTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.tickTimer = null;
    this.heartbeatTimer = null;
    for (const client of this.clients) client.end();
    this.clients.clear();
  }

  private tick(): void {
    this.tickTimer = null;
    if (!this.dirty) return;
    this.dirty = false;
    // always drain, so change tracking stays bounded while no page is open
    const delta = this.history.delta();
    if (this.clients.size > 0) this.broadcastRaw(`event: delta\ndata: ${JSON.stringify(delta)}\n\n`);
  }

  private send(response: ServerResponse, event: string, data: string): void {
    response.write(`event: ${event}\ndata: ${data}\n\n`);
  }

  private broadcastRaw(text: string): void {
    for (const client of this.clients) {
      if (client.writableLength > this.options.maxBufferedBytes) {
        client.destroy();
        this.detach(client);
        continue;
      }
      client.write(text);
    }
  }

  private detach(response: ServerResponse): void {
    this.clients.delete(response);
    if (this.clients.size === 0 && this.heartbeatTimer) {
      clearInterval(this.heartbeatTimer);
      this.heartbeatTimer = null;
    }
  }
}
