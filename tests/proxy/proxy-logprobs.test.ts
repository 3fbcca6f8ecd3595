// `logprobs` / `top_logprobs` on the tokens path: the entries are the engine's own log-probs of the captured tokens
// (the same numbers the turn records), with token text and bytes, streamed on the chunk that carries their text.
import { STREAM_FORMS } from "../../contracts/sglang.ts";
import { describe, expect, it } from "vitest";
import { postChat, startHarness, streamChat, waitFor, type SseEvent } from "./harness.ts";

interface Entry {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

const REPLY = "Logprobs for naïve café, please.";

function streamedEntries(events: SseEvent[]): { entries: Entry[]; chunksWithEntries: number; roleChunkLogprobs: unknown } {
  const entries: Entry[] = [];
  let chunksWithEntries = 0;
  let roleChunkLogprobs: unknown = undefined;
  for (const event of events) {
    if (event.data === "[DONE]") continue;
    const choice = (event.data.choices as { delta: { role?: string }; logprobs: { content: Entry[] } | null }[])[0];
    if (!choice) continue;
    if (choice.delta.role) roleChunkLogprobs = choice.logprobs;
    if (choice.logprobs) {
      chunksWithEntries++;
      entries.push(...choice.logprobs.content);
    }
  }
  return { entries, chunksWithEntries, roleChunkLogprobs };
}

describe("logprobs on the tokens path", () => {
  for (const streamForm of STREAM_FORMS) {
    it(`streams the engine's log-probs and top alternatives of every message token (${streamForm} engine chunks)`, async () => {
      const harness = await startHarness({ script: () => REPLY, streamForm });
      try {
        const answer = await streamChat(harness.url, { stream: true, logprobs: true, top_logprobs: 3, messages: [{ role: "user", content: "hi" }] }, { "x-session-id": "lp", "x-session-done": "1" });
        expect(answer.status).toBe(200);
        const { entries, chunksWithEntries, roleChunkLogprobs } = streamedEntries(answer.events);
        expect(roleChunkLogprobs).toBeNull();
        expect(chunksWithEntries).toBeGreaterThan(1); // spread over the stream, not one block at the end
        await waitFor(() => harness.closed.length === 1);
        const turn = harness.closed[0]!;
        // every response token but the end-of-turn token, with the very log-prob the turn captured
        const special = new Set([...harness.tokenizer.specialIds]);
        const messageTokens = turn.responseIds.map((id, index) => ({ id, logprob: turn.responseLogProbs[index]! })).filter((token) => !special.has(token.id));
        expect(entries.map((entry) => entry.logprob)).toEqual(messageTokens.map((token) => token.logprob));
        expect(entries.map((entry) => entry.token).join("")).toBe(REPLY);
        for (const entry of entries) {
          expect(entry.bytes).toEqual([...Buffer.from(entry.token, "utf8")]);
          expect(entry.top_logprobs).toHaveLength(3);
          expect(entry.top_logprobs.every((alternative) => alternative.logprob <= 0 && typeof alternative.token === "string")).toBe(true);
        }
      } finally {
        await harness.close();
      }
    });
  }

  it("puts every entry in the choice of a whole answer, and sends none unless asked", async () => {
    const harness = await startHarness({ script: () => REPLY });
    try {
      const asked = await postChat(harness.url, { logprobs: true, messages: [{ role: "user", content: "hi" }] }, { "x-session-id": "whole" });
      const choice = (asked.body.choices as { message: { content: string }; logprobs: { content: Entry[] } }[])[0]!;
      expect(choice.logprobs.content.map((entry) => entry.token).join("")).toBe(choice.message.content);
      expect(choice.logprobs.content.every((entry) => entry.top_logprobs.length === 0 && entry.logprob <= 0)).toBe(true);
      const plain = await postChat(harness.url, { messages: [{ role: "user", content: "hi again" }] }, { "x-session-id": "plain" });
      expect((plain.body.choices as { logprobs: unknown }[])[0]!.logprobs).toBeNull();
      const streamed = await streamChat(harness.url, { stream: true, messages: [{ role: "user", content: "hi there" }] }, { "x-session-id": "plain-stream" });
      expect(streamedEntries(streamed.events).chunksWithEntries).toBe(0);
    } finally {
      await harness.close();
    }
  });

  it("refuses top_logprobs without logprobs, or above 20, with a 400 naming the field", async () => {
    const harness = await startHarness({ script: () => REPLY });
    try {
      const without = await postChat(harness.url, { top_logprobs: 2, messages: [{ role: "user", content: "hi" }] });
      expect(without.status).toBe(400);
      expect((without.body.error as { param: string }).param).toBe("top_logprobs");
      const tooMany = await postChat(harness.url, { logprobs: true, top_logprobs: 21, messages: [{ role: "user", content: "hi" }] });
      expect(tooMany.status).toBe(400);
      expect((tooMany.body.error as { message: string }).message).toMatch(/top_logprobs/);
      expect(harness.standin.state.counters.requests).toBe(0);
    } finally {
      await harness.close();
    }
  });
});
