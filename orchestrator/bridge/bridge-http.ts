// HTTP plumbing for the bridge: bearer-token check in constant time, bounded JSON bodies validated by zod,
// JSON and error answers. Knows nothing of batches or the store.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { BRIDGE_VERSION, type BridgeErrorReply } from "../../contracts/bridge.ts";
import { sendJson } from "../../lib/http/send-json.ts";

export { sendJson };

const MAX_BODY_BYTES = 64 * 1024;

export class BridgeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** True when the request carries `Authorization: Bearer <token>` (compared in constant time). */
export function isAuthorized(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? "";
  const match = /^Bearer (.+)$/.exec(header);
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

export async function readJsonBody<Schema extends z.ZodType>(request: IncomingMessage, schema: Schema): Promise<z.infer<Schema>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BridgeHttpError(413, "BODY_TOO_LARGE", `request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new BridgeHttpError(400, "BAD_JSON", "request body is not JSON");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join(".") + ": " : "";
    throw new BridgeHttpError(400, "BRIDGE_PROTOCOL", `${where}${issue?.message ?? "invalid message"} (bridge protocol version ${BRIDGE_VERSION})`);
  }
  return parsed.data;
}


export function sendError(response: ServerResponse, status: number, code: string, message: string): void {
  const body: BridgeErrorReply = { version: BRIDGE_VERSION, type: "error", code, message };
  if (!response.headersSent) sendJson(response, status, body);
  else response.destroy();
}
