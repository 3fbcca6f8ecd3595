// The bridge's listening socket, its address and its per-run token: bound before the launch plan is built (the plan
// hands the address to slime's processes), served later by a BridgeServer, answering 503 until then. Owns binding,
// bridge.json and closing; not the messages.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { replaceDurably } from "../../lib/durable-file.ts";
import { sendError } from "./bridge-http.ts";
import { listen } from "../../lib/http/listen.ts";

export interface BridgeListenOptions {
  /** Loopback on one node; the head node's address when slime's rollout manager may run on another node. */
  host: string;
  port: number;
  /** The run folder: bridge.json is read from (reuseEndpoint) and written to it. */
  recordsDir: string;
  /** With port 0, rebind the port and token of a previous bridge.json in recordsDir (slime's env still holds them). */
  reuseEndpoint?: boolean;
  /** How long an idle kept-alive connection stays open (default 5 s; the Python client reopens a closed one silently). */
  keepAliveTimeoutMs?: number;
}

export class BridgeListener {
  private handler: RequestListener | null = null;
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly server: Server,
    private readonly recordsDir: string,
    readonly url: string,
    readonly token: string,
  ) {}

  /** Binds the bridge's port (a previous run's, when it is free and reuse is on) and draws its token; writes nothing. */
  static async open(options: BridgeListenOptions): Promise<BridgeListener> {
    const previous = options.port === 0 && options.reuseEndpoint !== false ? await previousEndpoint(options.recordsDir) : null;
    let listener: BridgeListener | null = null;
    // (a request before a BridgeServer serves it: the Python client takes a 5xx as "not up yet" and retries)
    const server = createServer((request, response) => {
      if (listener?.handler) return listener.handler(request, response);
      sendError(response, 503, "STARTING", "the orchestrator is starting; try again shortly");
    });
    server.requestTimeout = 120_000;
    server.headersTimeout = 30_000;
    server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
    let port = options.port;
    let token = randomBytes(32).toString("hex");
    if (previous && (await bind(server, options.host, previous.port).then(() => true, () => false))) {
      token = previous.token;
      port = previous.port;
    } else {
      await bind(server, options.host, port);
      port = (server.address() as AddressInfo).port;
    }
    listener = new BridgeListener(server, options.recordsDir, `http://${options.host}:${port}`, token);
    return listener;
  }

  /** Hands every request from now on to `handler` (the BridgeServer's). */
  serve(handler: RequestListener): void {
    this.handler = handler;
  }

  /** Writes bridge.json (url and token, private to the user) into the run folder, for a later run to rebind. */
  async publish(): Promise<void> {
    await replaceDurably(join(this.recordsDir, "bridge.json"), this.recordsDir, JSON.stringify({ url: this.url, token: this.token }) + "\n", 0o600);
  }

  /** Stops listening and drops every connection (long-polls included); once, however often it is called. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
    return this.closing;
  }
}

async function previousEndpoint(recordsDir: string): Promise<{ port: number; token: string } | null> {
  try {
    const saved = JSON.parse(await readFile(join(recordsDir, "bridge.json"), "utf8")) as { url?: unknown; token?: unknown };
    if (typeof saved.url !== "string" || typeof saved.token !== "string") return null;
    const port = Number(new URL(saved.url).port);
    return port > 0 ? { port, token: saved.token } : null;
  } catch {
    return null;
  }
}

/** The bridge's port: a multi-node bridge binds the recipe's head address, which must be one of this machine's. */
function bind(server: Server, host: string, port: number): Promise<void> {
  return listen(server, {
    port,
    host,
    key: "cluster.head_address",
    hint: "the bridge takes a free port; stop what holds this one",
    refine: (error) =>
      error.code === "EADDRNOTAVAIL"
        ? new OpenclawRlError("RECIPE_INVALID", `the bridge cannot listen on ${host}: no network interface of this machine has that address`, {
            path: "cluster.head_address",
            hint: "run `npx openclaw-rl start` on the head node, and set cluster.head_address to its IP as the other nodes reach it",
            cause: error,
          })
        : undefined,
  });
}
