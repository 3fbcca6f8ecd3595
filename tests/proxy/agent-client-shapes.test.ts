// What the real coding agents send, read by the Responses and Messages adapters (pure: no HTTP): shapes recorded from
// Codex 0.171.0 and Claude Code 2.1.332 against the proxy that the adapters once refused or misread.
import { describe, expect, it } from "vitest";
import { messagesRequestSchema } from "../../contracts/messages.ts";
import { responsesRequestSchema } from "../../contracts/responses.ts";
import { claudeCodeSignals, codexSignals, qwenCodeSignals } from "../../orchestrator/proxy/apis/client-signals.ts";
import { messagesToChat } from "../../orchestrator/proxy/apis/messages-request.ts";
import { responsesToChat } from "../../orchestrator/proxy/apis/responses-request.ts";
import { isOpenAiError, parseChatRequest } from "../../orchestrator/proxy/request-body.ts";

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

describe("the agents' own signals", () => {
  const COMPACT = "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\nYour task is to create a detailed summary of the conversation so far, paying close attention";
  const claudeCompaction = (content: unknown) => {
    const body = messagesRequestSchema.parse({ model: "qwen3-4b", max_tokens: 32000, tools: [{ name: "Read", input_schema: { type: "object" } }], metadata: { user_id: '{"device_id":"d","session_id":"8c72970b"}' }, messages: [{ role: "user", content }] });
    const chat = messagesToChat(body);
    if (isOpenAiError(chat)) throw new Error(chat.message);
    return claudeCodeSignals(body, chat, ["qwen3-4b"]);
  };

  it("reads Claude Code 2.1's compaction prompt as a side request, alone or appended to the user's last words", () => {
    expect(claudeCompaction(COMPACT)).toEqual({ conversation: { id: "8c72970b", from: "Claude Code's metadata.user_id" }, sideRequest: `opens with Claude Code's side prompt "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools."` });
    expect(claudeCompaction([{ type: "text", text: "Thanks. Is it a short file?\n" }, { type: "text", text: COMPACT }]).sideRequest).toContain("CRITICAL: Respond with TEXT ONLY");
    expect(claudeCompaction([{ type: "text", text: "Thanks. Is it a short file?" }]).sideRequest, "the user's own words are main").toBeUndefined();
  });

  it("takes Codex 0.171's session-id header (hyphenated) as its conversation id", () => {
    const body = responsesRequestSchema.parse({ model: "qwen3-4b", input: "hi", prompt_cache_key: "cache-key" });
    const converted = responsesToChat(body, []);
    if (isOpenAiError(converted)) throw new Error(converted.message);
    expect(codexSignals({ "session-id": "01a2182a-b68c" }, body, converted.chat).conversation).toEqual({ id: "01a2182a-b68c", from: "Codex's session_id header" });
    expect(codexSignals({}, body, converted.chat).conversation).toEqual({ id: "cache-key", from: "body prompt_cache_key" });
  });
});

describe("Qwen Code's requests (chat completions)", () => {
  const SUMMARIZE = "You are the component that summarizes a conversation when its context window is about to overflow. The summary you produce";
  const QWEN = { "user-agent": "QwenCode/0.24.4 (linux; x64)" };
  const chat = (messages: unknown[]) => {
    const parsed = parseChatRequest({ model: "qwen3-4b", messages });
    if (isOpenAiError(parsed)) throw new Error(parsed.message);
    return parsed;
  };
  const history = [{ role: "system", content: "You are Qwen Code" }, { role: "user", content: "List the files" }, { role: "assistant", content: "Done." }];

  it("reads its /compress requests as side: the prompt as the last user message (with tools), then as the system prompt", () => {
    const asUser = qwenCodeSignals(QWEN, chat([...history, { role: "user", content: [{ type: "text", text: SUMMARIZE }] }]));
    expect(asUser.sideRequest).toContain("Qwen Code's side prompt");
    const asSystem = qwenCodeSignals(QWEN, chat([{ role: "system", content: SUMMARIZE }, ...history.slice(1), { role: "user", content: "First, reason in your <analysis> block." }]));
    expect(asSystem.sideRequest).toContain("Qwen Code's side prompt");
    const memory = qwenCodeSignals(QWEN, chat([{ role: "system", content: "You are now acting as the managed memory extraction subagent for an AI coding assistant." }, ...history.slice(1), { role: "user", content: "Managed memory has TWO directories." }]));
    expect(memory.sideRequest).toContain("managed memory extraction subagent");
  });

  it("leaves the user's own turns, and other clients' requests, to the turn decision", () => {
    expect(qwenCodeSignals(QWEN, chat([...history, { role: "user", content: "Thanks. Which looks like notes?" }]))).toEqual({});
    expect(qwenCodeSignals({ "user-agent": "OpenAI/JS 5.11.0" }, chat([...history, { role: "user", content: SUMMARIZE }]))).toEqual({});
  });
});

describe("Codex's requests", () => {
  it("reads a function_call_output no call asked for (Codex's goal objective, by namespace and name) as a tool message", () => {
    const body = responsesRequestSchema.parse({
      model: "qwen3-4b",
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "Start a goal" }] },
        { type: "function_call", call_id: "call_1", name: "create_goal", arguments: '{"objective": "x"}' },
        { type: "function_call_output", call_id: "call_1", output: '{"goal": {}}' },
        { type: "function_call_output", id: "fco_2", name: "goal_objective", namespace: "agent", output: "x" },
      ],
    });
    const converted = responsesToChat(body, []);
    if (isOpenAiError(converted)) throw new Error(converted.message);
    expect(converted.chat.messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "call_1", content: '{"goal": {}}' },
      { role: "tool", tool_call_id: "agent.goal_objective", content: "x" },
    ]);
    const nameless = responsesRequestSchema.safeParse({ model: "m", input: [{ type: "function_call_output", output: "x" }] });
    expect(nameless.success).toBe(false);
    expect(nameless.error?.issues[0]?.message).toContain("needs its call_id");
  });
});
