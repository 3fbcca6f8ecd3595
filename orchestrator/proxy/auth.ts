// Bearer-key check in constant time (SHA-256 of both sides, timingSafeEqual); Anthropic's clients may send the key
// as x-api-key instead. The bind-address rule (any
// non-loopback address needs a key) lives in lib/bind-rule.ts. Ignores everything else about requests.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export class BearerAuth {
  private readonly expected: Buffer | null;

  constructor(apiKey: string | undefined) {
    this.expected = apiKey ? digest(apiKey) : null;
  }

  /** null when allowed, else the reason; with `apiKeyHeader` (the Messages API), an x-api-key header is a key too. */
  check(request: IncomingMessage, apiKeyHeader = false): string | null {
    if (!this.expected) return null;
    const value = request.headers.authorization;
    const match = value ? /^Bearer\s+(.+)$/i.exec(value.trim()) : null;
    const headerKey = apiKeyHeader ? request.headers["x-api-key"] : undefined;
    const key = match?.[1] ?? (typeof headerKey === "string" && headerKey.trim() !== "" ? headerKey.trim() : null);
    if (key === null) return apiKeyHeader ? "missing API key (send x-api-key: <key> or Authorization: Bearer <key>)" : "missing bearer token (send Authorization: Bearer <key>)";
    return timingSafeEqual(digest(key), this.expected) ? null : "invalid API key";
  }
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
