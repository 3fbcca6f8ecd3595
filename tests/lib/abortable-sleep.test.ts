// sleepUnlessAborted: true after the wait, false at once when the signal aborts (before or during the wait).
import { describe, expect, it } from "vitest";
import { sleepUnlessAborted } from "../../lib/abortable-sleep.ts";

describe("sleepUnlessAborted", () => {
  it("resolves true after the wait", async () => {
    expect(await sleepUnlessAborted(5, new AbortController().signal)).toBe(true);
  });
  it("resolves false when the signal aborts during the wait, without waiting it out", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const result = sleepUnlessAborted(60_000, controller.signal);
    controller.abort();
    expect(await result).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
  it("resolves false at once for a signal that had already aborted", async () => {
    expect(await sleepUnlessAborted(60_000, AbortSignal.abort())).toBe(false);
  });
});
