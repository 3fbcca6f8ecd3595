import { describe, expect, it } from "vitest";
import type { AssistantMessage, ChatMessage } from "../../contracts/chat.ts";
import type { CapturedTurn, ClosedTurn } from "../../contracts/turn.ts";
import { digestMessage, isEphemeral, prefixDigests, runtimeSessionId, stableHistory } from "../../orchestrator/sessions/message-digest.ts";
import { extractNextState } from "../../orchestrator/sessions/next-state.ts";
import { SessionTracker } from "../../orchestrator/sessions/session-tracker.ts";
import { decideTurn, type SessionView } from "../../orchestrator/sessions/turn-decision.ts";
import { INTERNAL_CONTEXT, openclawFixture, testRecipe } from "./fixtures.ts";

const proxy = testRecipe({ proxy: { utility_models: ["recap-mini"] } }).proxy;
const noSessions: SessionView = { longestHistory: () => null, usesTools: () => false, exists: () => false };
const fresh = (): string => "fresh-id";

function turn(sessionId: string, index: number, response: AssistantMessage, tools = true): CapturedTurn {
  return {
    version: 1,
    sessionId,
    turn: index,
    decidedBy: { session: "header:x-session-id", turnType: "agent-conversation", reason: "test" },
    messages: [],
    tools: tools ? [{ type: "function", function: { name: "ls" } }] : null,
    promptIds: Int32Array.of(1, 2, 3),
    responseIds: [4, 5],
    responseLogProbs: [-0.1, -0.2],
    response,
    finishReason: "stop",
    weightVersions: [{ version: "v1", start: 0, end: 2 }],
    approximate: false,
    startedAt: 0,
    firstTokenAt: 0,
    endedAt: 0,
  };
}

describe("turn decision", () => {
  it("stock OpenClaw turns are main, with the session from its affinity header", () => {
    const request = openclawFixture("main-turn-1");
    const decision = decideTurn(request.body, request.headers, [], proxy, noSessions, fresh);
    expect(decision).toMatchObject({ sessionId: "s1", turnType: "main", sessionDone: false });
    expect(decision.decidedBy).toMatchObject({ session: "header:session_id", turnType: "agent-conversation" });
  });

  it("without headers, OpenClaw's Runtime marker names the session", () => {
    const request = openclawFixture("main-turn-2");
    const decision = decideTurn(request.body, {}, [], proxy, noSessions, fresh);
    expect(decision).toMatchObject({ sessionId: "s1", turnType: "main" });
    expect(decision.decidedBy.session).toBe("openclaw-runtime-marker");
    expect(runtimeSessionId(request.body.messages)).toBe("s1");
  });

  it("explicit headers and body fields win, in order", () => {
    const body = { messages: [{ role: "user" as const, content: "hi" }], session_id: "body-id", turn_type: "side" as const };
    expect(decideTurn(body, { "x-session-id": "hdr", "x-turn-type": "main" }, [], proxy, noSessions, fresh)).toMatchObject({
      sessionId: "hdr",
      turnType: "main",
      decidedBy: { session: "header:x-session-id", turnType: "header:x-turn-type" },
    });
    expect(decideTurn(body, {}, [], proxy, noSessions, fresh)).toMatchObject({ sessionId: "body-id", turnType: "side", decidedBy: { session: "body:session_id", turnType: "body:turn_type" } });
    expect(decideTurn({ ...body, session_done: true }, {}, [], proxy, noSessions, fresh).sessionDone).toBe(true);
    expect(decideTurn(body, { "x-session-done": "yes" }, [], proxy, noSessions, fresh).sessionDone).toBe(true);
  });

  it("compaction and activity recap requests are side", () => {
    const compaction = {
      model: "qwen3-4b",
      max_completion_tokens: 2048,
      messages: [
        { role: "system" as const, content: "You are a context summarization assistant. Summarize." },
        { role: "user" as const, content: "<conversation>...</conversation>" },
      ],
    };
    const bare = decideTurn(compaction, { session_id: "s1" }, [], proxy, noSessions, fresh);
    expect(bare).toMatchObject({ sessionId: "s1", turnType: "side", decidedBy: { turnType: "side-system-prompt" } });
    const bareOnly = decideTurn({ messages: [{ role: "user", content: "summarize" }] }, { "x-session-affinity": "s1" }, [], proxy, noSessions, fresh);
    expect(bareOnly).toMatchObject({ sessionId: "s1", turnType: "side", decidedBy: { turnType: "openclaw-compaction" } });
    const recap = { model: "recap-mini", temperature: 0.2, messages: [{ role: "system" as const, content: "Write an Activity recap of this" }, { role: "user" as const, content: "{}" }] };
    expect(decideTurn(recap, {}, [], proxy, noSessions, fresh)).toMatchObject({ turnType: "side", decidedBy: { turnType: "utility-model" } });
    expect(decideTurn({ ...recap, model: "qwen3-4b" }, {}, [], proxy, noSessions, fresh)).toMatchObject({ turnType: "side", decidedBy: { turnType: "side-system-prompt" } });
  });

  it("infers the session from the longest known history, else a new one", () => {
    const view: SessionView = { longestHistory: (digests) => (digests.length >= 3 ? { sessionId: "known", matched: 3 } : null), usesTools: () => false, exists: () => true };
    const body = { messages: [{ role: "user" as const, content: "a" }, { role: "assistant" as const, content: "b" }, { role: "user" as const, content: "c" }] };
    const digests = prefixDigests(body.messages.map(digestMessage));
    expect(decideTurn(body, {}, digests, proxy, view, fresh)).toMatchObject({ sessionId: "known", turnType: "main", decidedBy: { session: "history-prefix", turnType: "default-main" } });
    expect(decideTurn(body, {}, digests.slice(0, 1), proxy, view, fresh)).toMatchObject({ sessionId: "fresh-id", decidedBy: { session: "new-session" } });
  });
});

describe("next state", () => {
  it("is the user reply after the previous assistant message, never the internal context block", () => {
    const request = openclawFixture("main-turn-2");
    const messages = request.body.messages;
    expect(isEphemeral(messages.at(-1)!)).toBe(true);
    expect(stableHistory(messages)).toHaveLength(messages.length - 1);
    const match = extractNextState(messages, { role: "assistant", content: "Hello from the stand-in 1" }, 2);
    expect(match.found).toBe(true);
    if (!match.found) return;
    expect(match.nextState?.role).toBe("user");
    expect(match.nextState?.messages).toHaveLength(1);
    expect(match.nextState?.text).toBe("[Sun 2026-11-22 07:04 UTC] Thanks, 👍");
  });

  it("matches a tool call replayed with content null, a rewritten id and re-serialised arguments", () => {
    const request = openclawFixture("tool-turn-2");
    const response: AssistantMessage = {
      role: "assistant",
      content: "",
      reasoning_content: "I should list the files.",
      tool_calls: [{ id: "call_2", type: "function", function: { name: "ls", arguments: '{"path": "."}' } }],
    };
    const match = extractNextState(request.body.messages, response, 2);
    expect(match.found && match.assistantIndex).toBe(2);
    if (!match.found) return;
    expect(match.nextState?.role).toBe("tool");
    expect(match.nextState?.messages.map((message) => message.role)).toEqual(["tool"]);
  });

  it("reports no next state yet when nothing follows, and not found when history diverged", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "a" }, { role: "assistant", content: "b" }, INTERNAL_CONTEXT];
    expect(extractNextState(messages, { role: "assistant", content: "b" }, 1)).toEqual({ found: true, assistantIndex: 1, nextState: null });
    expect(extractNextState(messages, { role: "assistant", content: "zzz" }, 1)).toEqual({ found: false });
  });
});

describe("session tracker", () => {
  function tracker(options: { max?: number; idleMs?: number } = {}) {
    let now = 1_000;
    const closed: ClosedTurn[] = [];
    const sessions = new SessionTracker({ maxSessions: options.max ?? 100, idleTimeoutMs: options.idleMs ?? 60_000, onTurnClosed: (closedTurn) => closed.push(closedTurn), now: () => now });
    return { sessions, closed, advance: (ms: number) => (now += ms) };
  }

  it("closes the previous main turn with the next request's reply, and side turns leave it open", () => {
    const { sessions, closed } = tracker();
    const history: ChatMessage[] = [{ role: "system", content: "sys" }, { role: "user", content: "hello" }];
    expect(sessions.begin("s", "main", [...history, INTERNAL_CONTEXT])).toBe(0);
    sessions.complete(turn("s", 0, { role: "assistant", content: "hi!" }), history);
    expect(sessions.begin("s", "side", [{ role: "system", content: "You are a context summarization assistant" }])).toBe(0);
    expect(closed).toHaveLength(0);
    sessions.begin("recap-only", "side", [{ role: "system", content: "Write an Activity recap" }]);
    expect(sessions.exists("recap-only")).toBe(false);
    const next: ChatMessage[] = [...history, { role: "assistant", content: "hi!" }, { role: "user", content: "thanks" }, INTERNAL_CONTEXT];
    expect(sessions.longestHistory(prefixDigests(stableHistory(next).map(digestMessage)))).toEqual({ sessionId: "s", matched: 3 });
    expect(sessions.begin("s", "main", next)).toBe(1);
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ turn: 0, closedBy: "next-request", closedAt: 1_000, nextState: { role: "user", text: "thanks" } });
  });

  it("closes idle sessions in one sweep and evicts the least recently used beyond max_sessions", () => {
    const { sessions, closed, advance } = tracker({ max: 2, idleMs: 10_000 });
    for (const id of ["a", "b"]) {
      sessions.begin(id, "main", [{ role: "user", content: id }]);
      sessions.complete(turn(id, 0, { role: "assistant", content: `re ${id}` }), [{ role: "user", content: id }]);
      advance(6_000);
    }
    sessions.begin("c", "main", [{ role: "user", content: "c" }]);
    expect(closed.map((entry) => [entry.sessionId, entry.closedBy])).toEqual([["a", "evicted"]]);
    sessions.complete(turn("c", 0, { role: "assistant", content: "re c" }), [{ role: "user", content: "c" }]);
    advance(5_000); // b idle 11 s, c idle 5 s
    expect(sessions.sweep()).toBe(1);
    expect(closed.map((entry) => [entry.sessionId, entry.closedBy, entry.nextState])).toEqual([
      ["a", "evicted", null],
      ["b", "idle-timeout", null],
    ]);
    expect(sessions.size).toBe(1);
    sessions.endSession("c");
    expect(closed.at(-1)).toMatchObject({ sessionId: "c", closedBy: "session-done", nextState: null });
    expect(sessions.size).toBe(0);
  });
});

describe("message digests", () => {
  it("caches long texts without changing the digest, and ignores replay differences", async () => {
    const { MessageDigests } = await import("../../orchestrator/sessions/message-digest.ts");
    const digests = new MessageDigests(10);
    const system: ChatMessage = { role: "system", content: "x".repeat(100) };
    expect(digests.of(system)).toBe(digestMessage(system));
    expect(digests.of({ role: "system", content: "x".repeat(100) })).toBe(digestMessage(system));
    expect(digests.of({ role: "user", content: "x".repeat(100) })).not.toBe(digestMessage(system));
    // ofSharing: the same digests, the content unchanged (an equal instance)
    const resent: ChatMessage = { role: "system", content: "x".repeat(100) };
    expect(digests.ofSharing(resent)).toBe(digestMessage(system));
    expect(resent.content).toBe("x".repeat(100));
    const short: ChatMessage = { role: "user", content: "hi" };
    expect(digests.ofSharing(short)).toBe(digestMessage(short));
    const sent: AssistantMessage = { role: "assistant", content: "", tool_calls: [{ id: "call_2", type: "function", function: { name: "ls", arguments: '{"path": "."}' } }] };
    const replayed: ChatMessage = { role: "assistant", content: null, tool_calls: [{ id: "call2", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }] };
    expect(digestMessage(replayed)).toBe(digestMessage(sent));
  });

  it("a user message's <system-reminder> parts do not count: Qwen Code resumes a conversation without its per-request date reminder", async () => {
    const { MessageDigests } = await import("../../orchestrator/sessions/message-digest.ts");
    const text = (value: string) => ({ type: "text", text: value });
    const skills = "<system-reminder>\nThe following skills are available\n</system-reminder>";
    const date = "<system-reminder>\nThe current date is: Thursday, November 26, 2026.\n</system-reminder>";
    const sent: ChatMessage = { role: "user", content: [text(skills), text(date), text("List the files matching `*.txt`.")] };
    const resumed: ChatMessage = { role: "user", content: [text(skills), text("List the files matching `*.txt`.")] };
    expect(digestMessage(resumed)).toBe(digestMessage(sent));
    expect(new MessageDigests(10).of(resumed)).toBe(new MessageDigests(10).of(sent));
    // the user's own words still count, and so does a reminder inside them (not a whole part)
    expect(digestMessage({ role: "user", content: [text(skills), text("List the files.")] })).not.toBe(digestMessage(sent));
    expect(digestMessage({ role: "user", content: [text(`${date} List the files matching \`*.txt\`.`)] })).not.toBe(digestMessage(resumed));
  });

  it("chains prefixes on from a given prefix digest exactly as over the whole list", async () => {
    const { MessageDigests } = await import("../../orchestrator/sessions/message-digest.ts");
    const digests = new MessageDigests();
    const all = ["a", "b", "c", "d", "e"].map((content) => digestMessage({ role: "user", content }));
    const whole = prefixDigests(all);
    expect(digests.prefixes(all)).toEqual(whole);
    expect(digests.prefixes(all.slice(3), whole[2])).toEqual(whole.slice(3));
    expect(digests.prefixes(all.slice(0, 1), "")).toEqual(whole.slice(0, 1));
  });

  it("a completed turn is found again by its history + response, with or without the history's prefix digest given", async () => {
    const { MessageDigests } = await import("../../orchestrator/sessions/message-digest.ts");
    const cache = new MessageDigests();
    const history: ChatMessage[] = [{ role: "system", content: "sys" }, { role: "user", content: "hello" }];
    const reply: AssistantMessage = { role: "assistant", content: "hi!" };
    const more: ChatMessage = { role: "user", content: "more" };
    const next = prefixDigests([...history.map((message) => digestMessage(message)), digestMessage(reply), digestMessage(more)]);
    for (const givePrefix of [false, true]) {
      const sessions = new SessionTracker({ maxSessions: 10, idleTimeoutMs: 60_000, onTurnClosed: () => undefined, digests: cache });
      sessions.begin("s", "main", history);
      const historyDigests = history.map((message) => cache.of(message));
      sessions.complete(turn("s", 0, reply), history, historyDigests, givePrefix ? cache.prefixes(historyDigests).at(-1) : undefined);
      expect(sessions.longestHistory(next), `prefix given: ${givePrefix}`).toEqual({ sessionId: "s", matched: 3 });
    }
  });
});
