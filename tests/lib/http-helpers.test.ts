// lib/http: one sendJson for every server (its own headers added, nothing but an end once headers went out) and one
// listen (a taken port is PORT_IN_USE naming the recipe key; other socket errors as the caller refines them).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { listen } from "../../lib/http/listen.ts";
import { sendJson } from "../../lib/http/send-json.ts";

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function served(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await listen(server, { port: 0, host: "127.0.0.1", key: "test.port", hint: "pick another" });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("sendJson", () => {
  it("sends the body with its length and the caller's headers", async () => {
    const url = await served((_request, response) => sendJson(response, 201, { é: "ü" }, { "cache-control": "no-store" }));
    const answer = await fetch(url);
    expect(answer.status).toBe(201);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.headers.get("content-length")).toBe(String(Buffer.byteLength(JSON.stringify({ é: "ü" }))));
    expect(await answer.json()).toEqual({ é: "ü" });
  });

  it("after headers went out it only ends the response (no second writeHead)", async () => {
    const url = await served((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n");
      sendJson(response, 500, { error: "late" });
    });
    const answer = await fetch(url);
    expect(await answer.text()).toBe("data: 1\n\n");
  });
});

describe("listen", () => {
  it("a taken port is PORT_IN_USE naming the recipe key and the hint", async () => {
    const url = await served((_request, response) => response.end());
    const port = Number(new URL(url).port);
    const second = createServer();
    servers.push(second);
    await expect(listen(second, { port, host: "127.0.0.1", key: "proxy.port", hint: "stop the other server or set proxy.port" })).rejects.toMatchObject({
      code: "PORT_IN_USE",
      path: "proxy.port",
      hint: "stop the other server or set proxy.port",
      message: `port ${port} on 127.0.0.1 is in use (proxy.port)`,
    });
  });

  it("another socket error goes through the caller's refinement", async () => {
    const server = createServer();
    servers.push(server);
    const refined = new Error("no such address here");
    await expect(listen(server, { port: 0, host: "192.0.2.1", key: "cluster.head_address", hint: "h", refine: (error) => (error.code === "EADDRNOTAVAIL" ? refined : undefined) })).rejects.toBe(refined);
  });
});
