import { readFile } from "node:fs/promises";
import path from "node:path";
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { assemble, postChat, startHarness, streamChat } from "./harness.ts";

describe("proxy lifecycle and passthrough", () => {
  it("close() finishes in-flight requests, then closes every open turn with closedBy shutdown", async () => {
    const harness = await startHarness({ script: () => "A slow answer with quite a few words in it.", tokenDelayMs: 5 });
    await postChat(harness.url, { messages: [{ role: "user", content: "first" }] }, { "x-session-id": "a" });
    const inFlight = streamChat(harness.url, { stream: true, messages: [{ role: "user", content: "second" }] }, { "x-session-id": "b" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(harness.proxy.stats().inFlight).toBe(1);
    await harness.proxy.close(5000);
    const answer = await inFlight;
    expect(assemble(answer.events).content).toBe("A slow answer with quite a few words in it.");
    expect(harness.closed.map((turn) => [turn.sessionId, turn.closedBy, turn.nextState]).sort()).toEqual([
      ["a", "shutdown", null],
      ["b", "shutdown", null],
    ]);
    const lines = (await readFile(path.join(harness.recordsDir, "turns.jsonl"), "utf8")).trim().split("\n");
    expect(lines).toHaveLength(2);
    await expect(fetch(`${harness.url}/healthz`)).rejects.toThrow();
    await harness.standin.close();
  });

  it("passthrough mode relays the engine's chat completion and records approximate turns", async () => {
    const harness = await startHarness({ script: () => "<think>\nok\n</think>\n\nPassed through.", recipe: { proxy: { mode: "passthrough" } } });
    try {
      const streamed = await streamChat(harness.url, { stream: true, messages: [{ role: "user", content: "hi" }], chat_template_kwargs: { enable_thinking: true } }, { "x-session-id": "p" });
      expect(streamed.status).toBe(200);
      expect(assemble(streamed.events).content).toBe("Passed through.");
      const whole = await postChat(harness.url, { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "Passed through." }, { role: "user", content: "and again" }] }, { "x-session-id": "p" });
      expect((whole.body.choices as { message: { content: string } }[])[0]!.message.content).toBe("Passed through.");
      const turn = harness.closed[0]!;
      expect(turn).toMatchObject({ sessionId: "p", turn: 0, approximate: true, closedBy: "next-request", nextState: { role: "user", text: "and again" } });
      expect(turn.responseIds.length).toBe(turn.responseLogProbs.length);
      // re-tokenizing gives back the engine's tokens; only the EOS, which the chat stream sends no entry for, is missing
      expect(harness.tokenizer.decode(turn.responseIds)).toBe("<think>\nok\n</think>\n\nPassed through.<|im_end|>");
      expect(turn.missingLogProbs).toEqual([turn.responseIds.length - 1]);
      expect(turn.responseLogProbs.at(-1)).toBe(0);
      expect(turn.responseLogProbs.slice(0, -1).every((value) => value < 0)).toBe(true);
      expect(turn.templateKwargs).toEqual({ enable_thinking: true });
      expect(harness.tokenizer.decode(turn.responseIds)).toContain("Passed through.");
      // the proxy asks the engine for log-probs to capture the turn: a client that did not ask gets none
      const choices = (events: typeof streamed.events) => events.flatMap((event) => (event.data === "[DONE]" ? [] : (event.data.choices as { logprobs: unknown }[])));
      expect(choices(streamed.events).length).toBeGreaterThan(0);
      expect(choices(streamed.events).every((choice) => choice.logprobs === null || choice.logprobs === undefined)).toBe(true);
      expect((whole.body.choices as { logprobs: unknown }[])[0]!.logprobs).toBeNull();
      const asked = await streamChat(harness.url, { stream: true, logprobs: true, messages: [{ role: "user", content: "hi" }] }, { "x-session-id": "q" });
      expect(choices(asked.events).some((choice) => Array.isArray((choice.logprobs as { content?: unknown } | null)?.content))).toBe(true);
      const askedWhole = await postChat(harness.url, { logprobs: true, messages: [{ role: "user", content: "hi" }] }, { "x-session-id": "r" });
      expect(((askedWhole.body.choices as { logprobs: { content: unknown[] } }[])[0]!.logprobs.content.length)).toBeGreaterThan(0);
    } finally {
      await harness.close();
    }
  });

  it("passthrough mode reads Qwen Code's side requests as side, as tokens mode does", async () => {
    const harness = await startHarness({ script: () => "A summary.", recipe: { proxy: { mode: "passthrough" } } });
    try {
      const summarize = "You are the component that summarizes a conversation when its context window is about to overflow. The summary you produce";
      const answer = await postChat(harness.url, { messages: [{ role: "system", content: summarize }, { role: "user", content: "First, reason in your <analysis> block." }] }, { "user-agent": "QwenCode/0.24.4 (linux; x64)" });
      expect(answer.status).toBe(200);
      const started = harness.events.find((event) => event.type === "turn-start");
      expect(started).toMatchObject({ turnType: "side", decidedBy: expect.stringContaining("client-side-request") });
    } finally {
      await harness.close();
    }
  });

  it("both modes answer 503 with what is down while the gate is closed, without calling it the policy engine", async () => {
    const reason = "rehearsal-judge is down: not answering: GET http://127.0.0.1:31001/health → ECONNREFUSED";
    for (const mode of ["tokens", "passthrough"] as const) {
      const harness = await startHarness({ script: () => "x", recipe: { proxy: { mode } }, ready: () => false, notReadyReason: reason });
      try {
        const answer = await postChat(harness.url, { messages: [{ role: "user", content: "hi" }] });
        expect(answer.status).toBe(503);
        expect(answer.headers.get("retry-after")).toBe("7");
        expect(answer.body.error).toMatchObject({ type: "server_error", code: "engine_unavailable", message: `the engines are not ready: ${reason}` });
      } finally {
        await harness.close();
      }
    }
  });

  it("passthrough mode relays SSE comments as they came and data events with their payload (log-probs only when asked)", async () => {
    const chunk = { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "hi" }, logprobs: { content: [{ token: "hi", logprob: -0.1 }] }, finish_reason: "stop" }] };
    const engine = createServer((request, response) => {
      request.resume().once("end", () => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(`: keep-alive\n\ndata: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", () => resolve()));
    const harness = await startHarness({ script: () => "x", recipe: { proxy: { mode: "passthrough" } }, policyUrl: `http://127.0.0.1:${(engine.address() as { port: number }).port}` });
    try {
      const answer = await fetch(`${harness.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ stream: true, messages: [{ role: "user", content: "hi" }] }) });
      const events = (await answer.text()).split("\n\n").filter(Boolean);
      expect(events[0]).toBe(": keep-alive");
      expect(JSON.parse(events[1]!.replace(/^data: /, ""))).toEqual({ ...chunk, choices: [{ ...chunk.choices[0], logprobs: null }] });
      expect(events[2]).toBe("data: [DONE]");
    } finally {
      await harness.close();
      engine.close();
    }
  });

  it("passthrough mode answers 400 with the engine's reason when the engine refuses the request, 502 for its other failures", async () => {
    const engine = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString())).once("end", () => {
        const refused = body.includes("please refuse");
        response.writeHead(refused ? 400 : 500, { "content-type": "application/json" });
        response.end(JSON.stringify(refused ? { object: "error", message: "top_k must be -1 (disable) or at least 1, got 0.", type: "BadRequestError", param: null, code: 400 } : { detail: "scheduler crashed" }));
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", () => resolve()));
    const harness = await startHarness({ script: () => "x", recipe: { proxy: { mode: "passthrough" } }, policyUrl: `http://127.0.0.1:${(engine.address() as { port: number }).port}` });
    try {
      const refused = await postChat(harness.url, { messages: [{ role: "user", content: "please refuse" }] });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ type: "invalid_request_error", code: "engine_rejected", message: "the policy engine refused the request: top_k must be -1 (disable) or at least 1, got 0." });
      const failed = await postChat(harness.url, { messages: [{ role: "user", content: "hi" }] });
      expect(failed.status).toBe(502);
      expect((failed.body.error as { message: string }).message).toMatch(/answered 500: .*scheduler crashed/);
      expect(harness.proxy.stats().turns).toEqual({ main: 0, side: 0 });
    } finally {
      await harness.close();
      engine.close();
    }
  });
});
