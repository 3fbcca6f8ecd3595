import { describe, expect, it } from "vitest";
import { assemble, postChat, qwen3, startHarness, streamChat, waitFor } from "./harness.ts";
import { closedAfterEach, scriptedEngine, sse } from "./scripted-engine.ts";

describe("continuing generations the engine could not finish", () => {
  const slots = closedAfterEach();

  it("continues after a 499 error chunk and after a connection cut mid-stream, with prompt + tokens so far", async () => {
    const { tokenizer } = await qwen3();
    const reply = [...(await tokenizer.encode("Alpha beta gamma delta epsilon zeta eta theta.")), tokenizer.tokenId("<|im_end|>")!];
    const fake = scriptedEngine([
      (_body, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        for (let count = 1; count <= 3; count++) sse(response, reply.slice(0, count), "v1", null, -0.1);
        response.end('data: {"error":{"message":"Request r was aborted","code":499}}\n\ndata: [DONE]\n\n');
      },
      (_body, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        for (let count = 1; count <= 2; count++) sse(response, reply.slice(3, 3 + count), "v2", null, -0.2);
        setTimeout(() => response.socket?.destroy(), 5); // the engine restarts mid-stream
      },
      (_body, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        const rest = reply.slice(5);
        for (let count = 1; count <= rest.length; count++) sse(response, rest.slice(0, count), "v2", count === rest.length ? { type: "stop", matched: rest.at(-1) } : null, -0.3);
        response.end("data: [DONE]\n\n");
      },
    ]);
    slots.engine = fake.server;
    const harness = (slots.harness = await startHarness({ script: () => "unused", policyUrl: await fake.start() }));
    const answer = await streamChat(harness.url, { stream: true, max_tokens: 100, messages: [{ role: "user", content: "letters" }] }, { "x-session-id": "cont" });
    expect(assemble(answer.events)).toMatchObject({ content: "Alpha beta gamma delta epsilon zeta eta theta.", finish: "stop" });

    expect(fake.calls).toHaveLength(3);
    const prompt = fake.calls[0]!.input_ids;
    expect(fake.calls[1]!.input_ids).toEqual([...prompt, ...reply.slice(0, 3)]);
    expect(fake.calls[1]!.sampling_params.max_new_tokens).toBe(97);
    expect(fake.calls[2]!.input_ids).toEqual([...prompt, ...reply.slice(0, 5)]);
    expect(fake.calls[2]!.sampling_params.max_new_tokens).toBe(95);

    await postChat(harness.url, { messages: [{ role: "user", content: "letters" }] }, { "x-session-id": "cont", "x-session-done": "1" });
    const turn = harness.closed.find((entry) => entry.turn === 0)!;
    expect(turn.responseIds).toEqual(reply);
    expect(prompt).toEqual(Array.from(turn.promptIds)); // the first request's input_ids (sent from cached JSON) are the captured prompt
    expect(prompt).toEqual(await tokenizer.encode(harness.template.render([{ role: "user", content: "letters" }], { addGenerationPrompt: true })));
    expect(turn.responseLogProbs).toEqual([...reply.slice(0, 3).map(() => -0.1), ...reply.slice(3, 5).map(() => -0.2), ...reply.slice(5).map(() => -0.3)]);
    expect(turn.weightVersions).toEqual([
      { version: "v1", start: 0, end: 3 },
      { version: "v2", start: 3, end: reply.length },
    ]);
  });

  it("links a plain client's turns by history alone (no headers, no markers)", async () => {
    const harness = (slots.harness = await startHarness({ script: (prompt) => (prompt.includes("second question") ? "Second answer." : "First answer.") }));
    const first = [{ role: "system", content: "You are terse." }, { role: "user", content: "first question" }];
    const one = await postChat(harness.url, { messages: first });
    const sessionId = one.headers.get("x-session-id");
    await postChat(harness.url, { messages: [...first, { role: "assistant", content: "First answer." }, { role: "user", content: "second question" }] });
    expect(harness.closed).toHaveLength(1);
    expect(harness.closed[0]).toMatchObject({ sessionId, turn: 0, nextState: { role: "user", text: "second question" }, decidedBy: { session: "new-session", turnType: "default-main" } });
    const secondStart = harness.events.filter((event) => event.type === "turn-start").at(-1);
    expect(secondStart).toMatchObject({ sessionId, turn: 1, turnType: "main" });
    expect((secondStart as { decidedBy: string }).decidedBy).toMatch(/history-prefix/);
  });
});

describe("request timeout", () => {
  it("answers 504 when a request outlives proxy.request_timeout_s, and records the turn as not completed", async () => {
    const harness = await startHarness({ script: () => "A long answer that will not finish in time at all.", tokenDelayMs: 100, recipe: { proxy: { request_timeout_s: 0.3 } } });
    try {
      const answer = await postChat(harness.url, { messages: [{ role: "user", content: "slow" }] }, { "x-session-id": "slow" });
      expect(answer.status).toBe(504);
      expect((answer.body.error as { message: string }).message).toMatch(/request_timeout_s/);
      await postChat(harness.url, { messages: [{ role: "user", content: "slow" }] }, { "x-session-id": "slow", "x-session-done": "1" }).catch(() => undefined);
      expect(harness.closed.filter((turn) => turn.turn === 0)).toEqual([]);
      expect(harness.events.find((event) => event.type === "turn-end" && event.turn === 0)).toMatchObject({ finishReason: "abort" });
    } finally {
      await harness.close();
    }
  });
});

describe("client disconnect", () => {
  it("a client that leaves mid-stream cancels the engine's generation and the turn is not recorded as complete (nor reported as an error)", async () => {
    const harness = await startHarness({ script: () => "A long answer that keeps going for a while, token after token, until the client leaves.", tokenDelayMs: 40 });
    try {
      const controller = new AbortController();
      const response = await fetch(`${harness.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-session-id": "leaver" },
        body: JSON.stringify({ messages: [{ role: "user", content: "talk" }], stream: true }),
        signal: controller.signal,
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read(); // the role chunk: the engine is generating
      controller.abort();
      await waitFor(() => harness.standin.state.inFlight.size === 0 && harness.events.some((event) => event.type === "turn-end"));
      expect(harness.standin.state.counters.aborted).toBe(1);
      expect(harness.events.find((event) => event.type === "turn-end")).toMatchObject({ finishReason: "abort" });
      expect(harness.events.filter((event) => event.type === "error")).toEqual([]);
    } finally {
      await harness.close();
    }
  });
});
