// Bearer-key check in constant time (SHA-256 of both sides, timingSafeEqual). The bind-address rule (any
// non-loopback address needs a key) lives in lib/bind-rule.ts. Ignores everything else about requests.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

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
