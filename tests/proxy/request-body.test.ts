import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readBody } from "../../orchestrator/proxy/request-body.ts";

/** A request body stream with the given headers (what readBody reads of an IncomingMessage). */
function incoming(headers: Record<string, string>): PassThrough & { headers: Record<string, string>; complete: boolean } {
  return Object.assign(new PassThrough(), { headers, complete: false });
}

describe("readBody", () => {
  it("joins the chunks of a declared body into one buffer", async () => {
    const request = incoming({ "content-length": "11" });
    const body = readBody(request as unknown as IncomingMessage, 100);
    request.write("hello ");
    request.complete = true;
    request.end("world");
    expect((await body).toString()).toBe("hello world");
  });

  it("rejects, rather than waiting forever, when the client goes away before the body is complete", async () => {
    const request = incoming({ "content-length": "1000" });
    const body = readBody(request as unknown as IncomingMessage, 10_000);
    request.write("only part of it");
    request.destroy();
    await expect(body).rejects.toThrow(/before the body was complete/);
  });
});
