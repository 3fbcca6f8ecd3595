import { afterEach, describe, expect, it } from "vitest";
import { STREAM_FORMS } from "../../contracts/sglang.ts";
import { assemble, postChat, qwen3, startHarness, streamChat, waitFor, type Harness } from "./harness.ts";

const LONG = "One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty.";

describe("streaming and weight updates", () => {
  let harness: Harness | null = null;
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  it("sends the first content delta while the engine is still generating", async () => {
    harness = await startHarness({ script: () => LONG, tokenDelayMs: 15 });
    const current = harness;
    let firstContentWhileRunning: boolean | null = null;
    const answer = await streamChat(current.url, { stream: true, messages: [{ role: "user", content: "count" }] }, { "x-session-id": "stream-1" }, (event) => {
      if (event.data === "[DONE]" || firstContentWhileRunning !== null) return;
      const delta = (event.data.choices as { delta: { content?: string } }[] | undefined)?.[0]?.delta;
      if (delta?.content) firstContentWhileRunning = current.standin.state.inFlight.size > 0 && current.standin.state.counters.finished === 0;
    });
    expect(firstContentWhileRunning).toBe(true);
    expect(assemble(answer.events).content).toBe(LONG);
    const contentChunks = answer.events.filter((event) => event.data !== "[DONE]" && (event.data.choices as { delta: { content?: string } }[])[0]?.delta.content);
    expect(contentChunks.length).toBeGreaterThan(10);
  });

  it("serves many streams at once without a listener-leak warning (one shutdown listener per request)", async () => {
    harness = await startHarness({ script: () => "Short answer.", tokenDelayMs: 20 });
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const answers = await Promise.all(Array.from({ length: 16 }, (_, index) => streamChat(harness!.url, { stream: true, messages: [{ role: "user", content: `q${index}` }] }, { "x-session-id": `many-${index}` })));
      for (const answer of answers) expect(assemble(answer.events).content).toBe("Short answer.");
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((warning) => warning.includes("MaxListeners"))).toEqual([]);
  });

  for (const streamForm of STREAM_FORMS) {
    it(`continues a generation across pause (abort mode) + weight version bump, recording who made which tokens (${streamForm} chunks)`, async () => {
      harness = await startHarness({ script: () => LONG, tokenDelayMs: 10, streamForm });
      const current = harness;
      let paused = false;
      const answer = await streamChat(current.url, { stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "count" }] }, { "x-session-id": "pause-1" }, async (event) => {
        if (paused || event.data === "[DONE]") return;
        const delta = (event.data.choices as { delta: { content?: string } }[] | undefined)?.[0]?.delta;
        if (!delta?.content) return;
        paused = true;
        // what slime does around a weight sync: pause (abort in-flight), new version, continue
        await fetch(`${current.standin.url}/pause_generation`, { method: "POST", body: JSON.stringify({ mode: "abort" }) });
        await fetch(`${current.standin.url}/update_weight_version`, { method: "POST", body: JSON.stringify({ new_version: "v2" }) });
        setTimeout(() => void fetch(`${current.standin.url}/continue_generation`, { method: "POST", body: "{}" }), 80);
      });
      expect(answer.status).toBe(200);
      const streamed = assemble(answer.events);
      expect(streamed.content).toBe(LONG);
      expect(streamed.finish).toBe("stop");
      expect(answer.events.some((event) => event.data !== "[DONE]" && "error" in event.data)).toBe(false);
      expect(current.standin.state.counters.aborted).toBeGreaterThanOrEqual(1);

      await postChat(current.url, { messages: [{ role: "user", content: "count" }] }, { "x-session-id": "pause-1", "x-session-done": "1" });
      const turn = current.closed.find((entry) => entry.sessionId === "pause-1" && entry.turn === 0)!;
      const expected = [...(await current.tokenizer.encode(LONG)), current.tokenizer.tokenId("<|im_end|>")!];
      expect(turn.responseIds).toEqual(expected);
      expect(turn.responseLogProbs).toHaveLength(expected.length);
      expect(turn.weightVersions.map((span) => span.version)).toEqual(["default", "v2"]);
      expect(turn.weightVersions[0]!.start).toBe(0);
      expect(turn.weightVersions[0]!.end).toBe(turn.weightVersions[1]!.start);
      expect(turn.weightVersions[1]!.end).toBe(expected.length);
      const end = current.events.find((event) => event.type === "turn-end" && event.sessionId === "pause-1");
      expect(end).toMatchObject({ continuedAfterAbort: 1, weightVersions: ["default", "v2"] });
      expect(current.versions).toEqual(["default", "v2"]);
      expect(streamed.usage).toMatchObject({ completion_tokens: expected.length });
      // X-Session-Done closed the second turn at once, without a next state
      expect(current.closed.find((entry) => entry.sessionId === "pause-1" && entry.turn === 1)).toMatchObject({ closedBy: "session-done", nextState: null });
    });
  }

  it("sends headers and the role chunk while the engine is paused, then the answer once it continues", async () => {
    harness = await startHarness({ script: () => "After the pause." });
    const current = harness;
    await fetch(`${current.standin.url}/pause_generation`, { method: "POST", body: JSON.stringify({ mode: "abort" }) });
    let roleWhilePaused = false;
    const answer = await streamChat(current.url, { stream: true, messages: [{ role: "user", content: "wait" }] }, {}, (event) => {
      if (event.data === "[DONE]" || roleWhilePaused) return;
      const delta = (event.data.choices as { delta: { role?: string } }[] | undefined)?.[0]?.delta;
      if (delta?.role === "assistant") {
        roleWhilePaused = current.standin.state.paused;
        setTimeout(() => void fetch(`${current.standin.url}/continue_generation`, { method: "POST", body: "{}" }), 30);
      }
    });
    expect(roleWhilePaused).toBe(true);
    expect(assemble(answer.events)).toMatchObject({ content: "After the pause.", finish: "stop" });
  });

  it("answers non-streamed requests from the same parser (reasoning, tool calls, tool_choice none)", async () => {
    const call = '<tool_call>\n{"name": "read", "arguments": {"path": "a.md"}}\n</tool_call>';
    harness = await startHarness({ script: () => `<think>\nneed the file\n</think>\n\n${call}` });
    const tools = [{ type: "function", function: { name: "read", parameters: { type: "object" } } }];
    const answer = await postChat(harness.url, { messages: [{ role: "user", content: "read a.md" }], tools });
    expect(answer.status).toBe(200);
    const choice = (answer.body.choices as { message: Record<string, unknown>; finish_reason: string }[])[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message).toMatchObject({ role: "assistant", content: null, reasoning_content: "need the file" });
    expect(choice.message.tool_calls).toEqual([{ id: expect.stringMatching(/^call_[0-9a-f]{24}$/), type: "function", function: { name: "read", arguments: '{"path": "a.md"}' } }]);
    expect(answer.headers.get("x-session-id")).toMatch(/^session-/);

    const none = await postChat(harness.url, { messages: [{ role: "user", content: "read a.md" }], tools, tool_choice: "none" });
    const noneChoice = (none.body.choices as { message: Record<string, unknown>; finish_reason: string }[])[0]!;
    expect(noneChoice.finish_reason).toBe("stop");
    expect(noneChoice.message.content).toBe(call);
    expect(noneChoice.message.tool_calls).toBeUndefined();
  });

  it("maps sampling parameters and caps max tokens", async () => {
    harness = await startHarness({ script: () => LONG, recipe: { model: { path: "builtin:qwen3", max_response_tokens: 5 } } });
    const answer = await postChat(harness.url, { messages: [{ role: "user", content: "count" }], max_tokens: 100, temperature: 0.1, seed: 7 });
    const choice = (answer.body.choices as { message: { content: string }; finish_reason: string }[])[0]!;
    expect(choice.finish_reason).toBe("length");
    expect((answer.body.usage as { completion_tokens: number }).completion_tokens).toBe(5);
    await waitFor(() => harness!.events.some((event) => event.type === "turn-end"));
  });

  it("renders chat_template_kwargs into the prompt and hands them on with the turn (the teacher renders them again)", async () => {
    harness = await startHarness({ script: () => LONG });
    const kwargs = { enable_thinking: false };
    const headers = { "x-session-id": "kwargs-1" };
    await postChat(harness.url, { messages: [{ role: "user", content: "count" }], chat_template_kwargs: kwargs }, headers);
    await postChat(harness.url, { messages: [{ role: "user", content: "count" }, { role: "assistant", content: LONG }, { role: "user", content: "thanks" }], chat_template_kwargs: kwargs }, headers);
    await waitFor(() => harness!.closed.length === 1);
    const turn = harness.closed[0]!;
    expect(turn.templateKwargs).toEqual(kwargs);
    const prompt = (await qwen3()).tokenizer.decode(turn.promptIds);
    expect(prompt.endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n")).toBe(true);
  });
});
