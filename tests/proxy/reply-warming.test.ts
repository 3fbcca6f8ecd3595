// After a main turn, the proxy encodes the reply's segments for the session's next prompt (PromptBuilder.warmReply):
// the next request, which replays that reply, finds them in the tokenizer's segment cache.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../contracts/chat.ts";
import { postChat, startHarness, waitFor, type Harness } from "./harness.ts";

const MARK = `warm-${process.pid}-${Date.now()}`; // (the harness's tokenizer is shared: a reply no other test wrote)
const LONG = Array.from({ length: 30 }, (_, index) => `Line ${index} of ${MARK}: the file changed at offset ${index * 31}.`).join(" ");

describe("reply warming through the proxy", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ script: () => `<think>\nList them.\n</think>\n\n${LONG}` });
  });
  afterAll(async () => harness.close());

  /** The missing (uncached) segments of the prompt the client's next request will have, that hold `text`. */
  const uncachedWith = (messages: ChatMessage[], text: string): string[] => {
    const prompt = harness.template.render(messages, { tools: null, addGenerationPrompt: true });
    return harness.tokenizer.uncachedSegments(prompt).filter((segment) => segment.includes(text));
  };

  it("caches a long reply's segments before the next request, which then builds its prompt without encoding them", async () => {
    const first: ChatMessage[] = [{ role: "user", content: `What changed? (${MARK})` }];
    const answer = await postChat(harness.url, { messages: first }, { "x-session-id": "warm-1" });
    expect(answer.status).toBe(200);
    const reply = (answer.body.choices as { message: { content: string } }[])[0]!.message.content;
    expect(reply).toBe(LONG);
    const next: ChatMessage[] = [...first, { role: "assistant", content: reply }, { role: "user", content: "Thanks." }]; // replayed without reasoning
    await waitFor(() => uncachedWith(next, MARK).length === 0, 10_000);
    const again = await postChat(harness.url, { messages: next }, { "x-session-id": "warm-1" });
    expect(again.status).toBe(200);
  });
});
