// Bearer-key check in constant time (SHA-256 of both sides, timingSafeEqual) and the bind-address rule:
// any non-loopback address needs a key. Ignores everything else about requests.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { OpenclawRlError } from "../../contracts/errors.ts";

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

export function assertBindAllowed(host: string, apiKey: string | undefined, keyEnv: string): void {
  if (!isLoopback(host) && !apiKey) {
    throw new OpenclawRlError("UNAUTHORIZED", `refusing to serve the proxy on ${host} without an API key`, {
      path: "proxy.host",
      hint: `set the ${keyEnv} environment variable (clients send it as "Authorization: Bearer <key>"), or bind 127.0.0.1`,
    });
  }
}

export class BearerAuth {
  private readonly expected: Buffer | null;

  constructor(apiKey: string | undefined) {
    this.expected = apiKey ? digest(apiKey) : null;
  }

  /** null when allowed, else the reason. */
  check(request: IncomingMessage): string | null {
    if (!this.expected) return null;
    const value = request.headers.authorization;
    const match = value ? /^Bearer\s+(.+)$/i.exec(value.trim()) : null;
    if (!match) return "missing bearer token (send Authorization: Bearer <key>)";
    return timingSafeEqual(digest(match[1]!), this.expected) ? null : "invalid API key";
  }
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
