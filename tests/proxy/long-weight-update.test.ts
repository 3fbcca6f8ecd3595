// A weight update longer than a client's patience: the stream stays alive with SSE keep-alive comments and then
// continues, a request that arrives during the pause waits instead of failing, and the wait is bounded by
// proxy.request_timeout_s (then an error the client can see, never a silent hang).
import { afterEach, describe, expect, it } from "vitest";
import { HEARTBEAT_MS } from "../../orchestrator/proxy/sse-writer.ts";
import { postChat, sseFrames, startHarness, type Harness } from "./harness.ts";

const ANSWER = "One two three four five six seven eight nine ten eleven twelve.";

/** The raw SSE frames of a streamed chat request (comments included); `onFrame` sees each as it arrives. */
async function rawStream(url: string, body: unknown, onFrame: (frame: string) => void | Promise<void>): Promise<string[]> {
  const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return sseFrames(response, onFrame);
}

function content(frames: string[]): string {
  return frames
    .filter((frame) => frame.startsWith("data: {"))
    .map((frame) => (JSON.parse(frame.slice(6)) as { choices?: { delta: { content?: string } }[] }).choices?.[0]?.delta.content ?? "")
    .join("");
}

describe("a long weight update", () => {
  let harness: Harness | null = null;
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  it(`keeps the stream alive (keep-alive every ${HEARTBEAT_MS / 1000} s) and lets new requests wait, then both complete`, async () => {
    // as run.ts wires it: the policy client waits as long as proxy.request_timeout_s (900 s by default)
    harness = await startHarness({ script: () => ANSWER, tokenDelayMs: 10, policyTimeoutMs: 900_000 });
    const engine = harness.standin.url;
    let pausedAt = 0;
    let waiting: Promise<{ status: number }> | null = null;
    const duringPause: string[] = [];
    const frames = await rawStream(harness.url, { stream: true, messages: [{ role: "user", content: "count" }] }, async (frame) => {
      if (pausedAt > 0 && harness!.standin.state.paused) duringPause.push(frame);
      if (pausedAt > 0 || !frame.includes('"content"')) return;
      pausedAt = Date.now(); // what slime does around a weight sync: pause (abort in-flight), new version, continue
      await fetch(`${engine}/pause_generation`, { method: "POST", body: JSON.stringify({ mode: "abort" }) });
      await fetch(`${engine}/update_weight_version`, { method: "POST", body: JSON.stringify({ new_version: "v2" }) });
      waiting = postChat(harness!.url, { messages: [{ role: "user", content: "asked during the update" }] });
      setTimeout(() => void fetch(`${engine}/continue_generation`, { method: "POST", body: "{}" }), HEARTBEAT_MS + 1500);
    });
    expect(duringPause).toContain(": keep-alive");
    expect(frames.some((frame) => frame.includes('"error"'))).toBe(false);
    expect(content(frames)).toBe(ANSWER);
    expect(frames.at(-1)).toBe("data: [DONE]");
    expect((await waiting!).status).toBe(200); // it waited out the update: no 503
    expect(Date.now() - pausedAt).toBeGreaterThanOrEqual(HEARTBEAT_MS + 1500);
  }, 60_000);

  it("bounds the wait by proxy.request_timeout_s: past it the stream ends with a timeout error", async () => {
    harness = await startHarness({ script: () => ANSWER, tokenDelayMs: 10, policyTimeoutMs: 1000, recipe: { model: { path: "builtin:qwen3" }, proxy: { request_timeout_s: 1 } } });
    await fetch(`${harness.standin.url}/pause_generation`, { method: "POST", body: JSON.stringify({ mode: "abort" }) });
    const frames = await rawStream(harness.url, { stream: true, messages: [{ role: "user", content: "count" }] }, () => undefined);
    const error = frames.find((frame) => frame.includes('"error"'));
    expect(JSON.parse(error!.slice(6))).toMatchObject({ error: { code: "timeout", message: expect.stringContaining("proxy.request_timeout_s") } });
    expect(frames.at(-1)).toBe("data: [DONE]");
  });
});
