// What the real coding agents send, read by the Responses and Messages adapters (pure: no HTTP): shapes recorded from
// Codex 0.171.0 and Claude Code 2.1.332 against the proxy that the adapters once refused or misread.
import { describe, expect, it } from "vitest";
import { messagesRequestSchema } from "../../contracts/messages.ts";
import { messagesToChat } from "../../orchestrator/proxy/apis/messages-request.ts";
import { isOpenAiError } from "../../orchestrator/proxy/request-body.ts";

describe("Claude Code's requests", () => {
  it("reads a system message among the turns (Claude Code 2.1 sends its environment as one) as a system message in place", () => {
    const body = messagesRequestSchema.parse({
      model: "qwen3-4b",
      max_tokens: 32000,
      system: [{ type: "text", text: "You are a Claude agent." }],
      messages: [
        { role: "user", content: [{ type: "text", text: "List the files in the current folder." }] },
        { role: "system", content: [{ type: "text", text: "# Environment" }, { type: "text", text: "Primary working directory: /tmp/w" }] },
      ],
    });
    const chat = messagesToChat(body);
    expect(isOpenAiError(chat)).toBe(false);
    expect(!isOpenAiError(chat) && chat.messages).toEqual([
      { role: "system", content: "You are a Claude agent." },
      { role: "user", content: "List the files in the current folder." },
      { role: "system", content: "# Environment\n\nPrimary working directory: /tmp/w" },
    ]);
    const withTool = messagesRequestSchema.parse({ model: "m", max_tokens: 8, messages: [{ role: "user", content: "hi" }, { role: "system", content: [{ type: "tool_use", id: "t", name: "ls", input: {} }] }] });
    const refused = messagesToChat(withTool);
    expect(isOpenAiError(refused) && refused.message).toContain('messages.1.content.0: "tool_use" blocks are not supported in a system message');
  });
});
