// Named server-sent events (`event: X\ndata: {...}`) as the Responses and Messages APIs stream them, with the same
// keep-alive comments as the chat stream. Ignores what the events mean.
import type { ServerResponse } from "node:http";
import { HEARTBEAT_MS } from "../sse-writer.ts";

export class EventStream {
  private started = false;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    private readonly response: ServerResponse,
    private readonly headers: Record<string, string>,
  ) {}

  get isStarted(): boolean {
    return this.started;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...this.headers });
    this.response.socket?.setNoDelay(true);
    this.heartbeat = setInterval(() => {
      if (!this.response.writableEnded && !this.response.destroyed) this.response.write(": keep-alive\n\n");
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
    this.response.once("close", () => this.stopHeartbeat());
  }

  send(event: string, data: unknown): void {
    this.start();
    if (this.response.writableEnded || this.response.destroyed) return;
    this.response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    this.heartbeat?.refresh();
  }

  end(): void {
    this.stopHeartbeat();
    this.response.end();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}
