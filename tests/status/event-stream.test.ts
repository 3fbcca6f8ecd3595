// The admin server's ws /events stream under bad clients: a protocol error (an unmasked frame, a frame over the
// size limit) drops that client and is reported, a reset during a refused upgrade is shrugged off, the orchestrator
// lives on; a client that stops reading is closed
// once its unread output passes the cap; past the client limit a client is refused with a reason it can print.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { RunEvent } from "../../contracts/events.ts";
import { streamClosed } from "../../cli/commands/status-watch.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { AdminServer } from "../../orchestrator/status/admin-server.ts";
import type { EventStreamOptions } from "../../orchestrator/status/event-stream.ts";
import type { StatusSnapshot } from "../../contracts/status.ts";

const token = "t".repeat(32);
let server: AdminServer | null = null;

afterEach(async () => {
  await server?.close();
  server = null;
});

async function startServer(stream: Partial<EventStreamOptions> = {}) {
  const bus = new EventBus();
  const errors: Array<Extract<RunEvent, { type: "error" }>> = [];
  bus.subscribe((event) => event.type === "error" && errors.push(event));
  server = new AdminServer({ bus, token, snapshot: () => ({ ok: true }) as unknown as StatusSnapshot, stream });
  const { port, url } = await server.listen(0);
  return { bus, errors, port, url };
}

/** A connected client; what it receives is collected from the start (the replay comes with the handshake). */
function openClient(url: string): Promise<WebSocket & { received: string[] }> {
  const client = Object.assign(new WebSocket(`${url.replace("http", "ws")}/events`, { headers: { authorization: `Bearer ${token}` } }), { received: [] as string[] });
  client.on("message", (data) => client.received.push(String(data)));
  return new Promise((resolve, reject) => {
    client.once("open", () => resolve(client));
    client.once("error", reject);
  });
}

function closed(client: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => client.once("close", (code, reason) => resolve({ code, reason: String(reason) })));
}

async function statusAnswers(url: string): Promise<number> {
  return (await fetch(`${url}/status`, { headers: { authorization: `Bearer ${token}` } })).status;
}

describe("ws /events with bad clients", () => {
  it("drops a client that sends an unmasked frame, reports it, and keeps serving the others", async () => {
    const { bus, errors, port, url } = await startServer();
    const good = await openClient(url);

    const raw = net.connect(port, "127.0.0.1");
    raw.on("error", () => undefined);
    raw.write(
      "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    await new Promise((resolve) => raw.once("data", resolve)); // 101 Switching Protocols (and the replay)
    const rawClosed = new Promise((resolve) => raw.once("close", resolve));
    raw.write(Buffer.from([0x81, 0x02, 0x68, 0x69])); // FIN text "hi", no mask: a protocol error from a client
    await rawClosed;

    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]).toMatchObject({ source: "admin", code: "ADMIN_CLIENT" });
    expect(errors[0]!.message).toContain("WS_ERR_EXPECTED_MASK");
    expect(await statusAnswers(url)).toBe(200);
    bus.emit({ type: "engine-state", name: "policy", state: "ready", detail: "still here" });
    await expect.poll(() => good.received.some((text) => text.includes("still here"))).toBe(true);
    good.close();
  });

  it("survives clients that reset the connection while their upgrade is refused", async () => {
    const { port, url } = await startServer();
    for (let index = 0; index < 50; index++) {
      const raw = net.connect(port, "127.0.0.1");
      raw.on("error", () => undefined);
      await new Promise((resolve) => raw.once("connect", resolve));
      raw.write("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
      raw.resetAndDestroy(); // no token: the server writes its 401 to a connection that is gone (ECONNRESET)
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await statusAnswers(url)).toBe(200);
  });

  it("drops a client that sends a frame over 64 KiB", async () => {
    const { errors, url } = await startServer();
    const client = await openClient(url);
    client.on("error", () => undefined);
    const end = closed(client);
    client.send(Buffer.alloc(70 * 1024));
    expect((await end).code).toBe(1009);
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]!.message).toContain("WS_ERR_UNSUPPORTED_MESSAGE_LENGTH");
    expect(await statusAnswers(url)).toBe(200);
  });

  it("closes a client that stops reading once its unread output passes the cap, with a reason", async () => {
    const cap = 256 * 1024;
    const { bus, url } = await startServer({ maxBufferedBytes: cap });
    const client = await openClient(url);
    const end = closed(client);
    client.pause(); // a stopped `status --watch`
    const detail = "x".repeat(4096);
    const serverSide = () => [...(server as unknown as { sockets: { clients: Set<WebSocket> } }).sockets.clients];
    let peak = 0;
    for (let index = 0; index < 20_000; index++) {
      bus.emit({ type: "engine-state", name: "policy", state: "ready", detail });
      for (const socket of serverSide()) peak = Math.max(peak, socket.bufferedAmount);
    }
    // what the server holds for it stays near the cap (one event over it), not 80 MB
    expect(peak).toBeLessThan(cap + 16 * 1024);
    expect(serverSide().every((socket) => socket.readyState !== socket.OPEN)).toBe(true);
    client.resume();
    const { code, reason } = await end;
    expect(code).toBe(1008);
    expect(reason).toBe("too slow: over 256 KiB of events unread; reconnect to resume");
    expect(streamClosed(code, reason)?.message).toBe("the event stream was closed (1008): too slow: over 256 KiB of events unread; reconnect to resume");
  }, 30_000);

  it("refuses a client past the client limit with a reason, and takes one again when a slot is free", async () => {
    const { url } = await startServer({ maxClients: 2 });
    const first = await openClient(url);
    await openClient(url);
    const third = await openClient(url);
    const { code, reason } = await closed(third);
    expect(code).toBe(1013);
    expect(reason).toBe("at most 2 /events clients at once; close one and try again");
    const firstClosed = closed(first);
    first.close();
    await firstClosed;
    const fourth = await openClient(url);
    await expect.poll(() => fourth.received.length).toBeGreaterThan(0);
    expect(JSON.parse(fourth.received[0]!)).toMatchObject({ replay: expect.any(Number) });
    expect(streamClosed(1001, "openclaw-rl is stopping")).toBeNull();
  });
});
