// The admin server's raw event stream (ws /events): recent history replayed on connect, then every live RunEvent.
// Bounded and fault-contained: at most `maxClients` clients, a client whose unread output passes `maxBufferedBytes`
// is closed with a reason it can print, and a client that breaks the protocol (an unmasked frame, a frame over the
// size limit) is dropped and reported, never allowed to throw out of the process.
import type { WebSocket } from "ws";
import { EVENT_VERSION, type RunEvent } from "../../contracts/events.ts";

export interface EventStreamOptions {
  /** Events replayed to a new client. */
  replay: number;
  maxClients: number;
  /** A client whose unsent output exceeds this is closed (code 1008); it may reconnect and get a fresh replay. */
  maxBufferedBytes: number;
}

export const defaultEventStreamOptions: EventStreamOptions = {
  replay: 500,
  maxClients: 16,
  maxBufferedBytes: 4 * 1024 * 1024,
};

/** Close codes the stream uses (RFC 6455): the reason says the rest. */
export const EVENT_STREAM_CLOSE = {
  stopping: 1001,
  protocolError: 1002,
  tooSlow: 1008,
  tooManyClients: 1013,
} as const;

export class EventStream {
  private readonly clients = new Set<WebSocket>();
  private readonly options: EventStreamOptions;

  constructor(
    private readonly recent: (limit: number) => RunEvent[],
    /** Told when a client is dropped for an error (a protocol error, a broken socket). */
    private readonly report: (message: string) => void,
    options: Partial<EventStreamOptions> = {},
  ) {
    this.options = { ...defaultEventStreamOptions, ...options };
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Takes an upgraded client: refuses it past the client limit, else replays recent history to it. */
  attach(client: WebSocket): void {
    // before anything else: an 'error' with no listener would end the whole orchestrator
    client.on("error", (error: Error & { code?: string }) => {
      this.clients.delete(client);
      client.terminate();
      this.report(`an /events client was dropped: ${error.message}${error.code ? ` (${error.code})` : ""}`);
    });
    client.on("close", () => this.clients.delete(client));
    client.on("message", () => undefined); // a read-only stream: what a client sends is ignored
    if (this.clients.size >= this.options.maxClients) {
      client.close(EVENT_STREAM_CLOSE.tooManyClients, `at most ${this.options.maxClients} /events clients at once; close one and try again`);
      return;
    }
    this.clients.add(client);
    const replay = this.recent(this.options.replay);
    client.send(JSON.stringify({ version: EVENT_VERSION, replay: replay.length }));
    for (const event of replay) client.send(JSON.stringify({ version: EVENT_VERSION, event, replayed: true }));
  }

  /** Sends one live event to every client, closing those that stopped reading. */
  broadcast(event: RunEvent): void {
    let text: string | null = null;
    for (const client of this.clients) {
      if (client.readyState !== client.OPEN) continue;
      if (client.bufferedAmount > this.options.maxBufferedBytes) {
        // the close frame waits behind what is buffered; ws destroys the socket if the client never answers it
        this.clients.delete(client);
        client.close(EVENT_STREAM_CLOSE.tooSlow, `too slow: over ${size(this.options.maxBufferedBytes)} of events unread; reconnect to resume`);
        continue;
      }
      text ??= JSON.stringify({ version: EVENT_VERSION, event });
      client.send(text);
    }
  }

  close(): void {
    for (const client of this.clients) client.close(EVENT_STREAM_CLOSE.stopping, "openclaw-rl is stopping");
    this.clients.clear();
  }
}

function size(bytes: number): string {
  return bytes >= 1048576 ? `${Math.round(bytes / 1048576)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}
