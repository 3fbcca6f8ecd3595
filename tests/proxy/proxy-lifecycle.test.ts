import { readFile } from "node:fs/promises";
import path from "node:path";
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
    } finally {
      await harness.close();
    }
  });
});
