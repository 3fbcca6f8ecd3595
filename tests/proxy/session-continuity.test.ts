// Sessions across retries, edits, re-serialised replays, idle closes, evictions and restarts: the next state is never
// an older message's, a session is found again by any recent history of it, and (session, turn) is never used twice.
import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../contracts/chat.ts";
import { readTurnNumbers } from "../../orchestrator/records/turn-numbers.ts";
import { INTERNAL_CONTEXT, openclawSystemPrompt, openclawTools } from "./fixtures.ts";
import { assemble, startHarness, streamChat, waitFor, type Harness } from "./harness.ts";

const SYSTEM: ChatMessage = { role: "system", content: openclawSystemPrompt(4000) };
const tools = openclawTools();

/** Lists files with a tool call when asked to list, answers a tool result with prose, else "Sure.". */
function script(prompt: string): string {
  const stable = prompt.replace(/<\|im_start\|>user\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>[\s\S]*?<\|im_end\|>\n/, "");
  const tail = stable.slice(stable.lastIndexOf("<|im_start|>user"));
  if (tail.includes("<tool_response>")) return "Here they are.";
  if (/list/i.test(tail)) return '<tool_call>\n{"name": "ls", "arguments": {"path": ".", "depth": 1}}\n</tool_call>';
  return "Sure.";
}

const openclaw = (messages: ChatMessage[]) => ({ model: "qwen3-4b", stream: true, tools, messages: [...messages, INTERNAL_CONTEXT] });
const runtimeUser = (text: string, sessionId: string): ChatMessage => ({ role: "user", content: `${text}\n\nRuntime: agent=main | session=agent:main:explicit:${sessionId} | sessionId=${sessionId} | host=vm` });

function replayedCall(answer: ReturnType<typeof assemble>, id: string, args?: string): ChatMessage {
  return { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: answer.toolCalls[0]!.name, arguments: args ?? answer.toolCalls[0]!.arguments } }] };
}

async function recordKeys(harness: Harness): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, 80)); // records are group-committed
  const text = await readFile(path.join(harness.recordsDir, "turns.jsonl"), "utf8").catch(() => "");
  return text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { session_id: string; turn: number; closed_by: string })
    .map((record) => `${record.session_id}:${record.turn}:${record.closed_by}`);
}

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe("session continuity", () => {
  it("a retried request closes the open turn without a next state, never with an earlier turn's (the same tool call answered turn 0)", async () => {
    harness = await startHarness({ script });
    const u1 = runtimeUser("list the files", "r1");
    const call = replayedCall(assemble((await streamChat(harness.url, openclaw([SYSTEM, u1]))).events), "call1");
    const result: ChatMessage = { role: "tool", content: "OLD-RESULT a.txt", tool_call_id: "call1" };
    const prose = assemble((await streamChat(harness.url, openclaw([SYSTEM, u1, call, result]))).events);
    const history = [SYSTEM, u1, call, result, { role: "assistant", content: prose.content } as ChatMessage, { role: "user", content: "list them again please" } as ChatMessage];
    expect(assemble((await streamChat(harness.url, openclaw(history))).events).finish).toBe("tool_calls");
    await streamChat(harness.url, openclaw(history)); // the client lost the answer and sends the same request again
    await waitFor(() => harness!.closed.some((turn) => turn.turn === 2));
    expect(harness.closed.find((turn) => turn.turn === 0)!.nextState).toMatchObject({ role: "tool", text: "OLD-RESULT a.txt" });
    expect(harness.closed.find((turn) => turn.turn === 2)).toMatchObject({ closedBy: "next-request", nextState: null });
  });

  it("tool-call arguments replayed with their keys in another order still find the turn and its tool results", async () => {
    harness = await startHarness({ script });
    const u1 = runtimeUser("list the files", "k1");
    const answer = assemble((await streamChat(harness.url, openclaw([SYSTEM, u1]))).events);
    expect(answer.toolCalls[0]!.arguments).toBe('{"path": ".", "depth": 1}');
    const sorted = '{"depth":1,"path":"."}'; // Go's encoding/json, for one, sorts map keys
    await streamChat(harness.url, openclaw([SYSTEM, u1, replayedCall(answer, "c1", sorted), { role: "tool", content: "a.txt", tool_call_id: "c1" }]));
    await waitFor(() => harness!.closed.length > 0);
    expect(harness.closed[0]!.nextState).toMatchObject({ role: "tool", text: "a.txt" });
  });

  it("a retried or edited request of a client without session headers or marker stays in its session", async () => {
    harness = await startHarness({ script });
    const system: ChatMessage = { role: "system", content: "You are a helpful assistant." };
    const plain = (messages: ChatMessage[]) => ({ model: "qwen3-4b", stream: true, messages });
    const first = await streamChat(harness.url, plain([system, { role: "user", content: "hi" }]));
    const session = first.headers.get("x-session-id");
    const history = [system, { role: "user", content: "hi" }, { role: "assistant", content: assemble(first.events).content }] as ChatMessage[];
    const ask = async (last: string) => (await streamChat(harness!.url, plain([...history, { role: "user", content: last }]))).headers.get("x-session-id");
    expect(await ask("how are you")).toBe(session);
    expect(await ask("how are you")).toBe(session); // retried
    expect(await ask("how are you today?")).toBe(session); // the last message edited
  });

  it("a session id that comes back after an idle close or an eviction goes on numbering its turns", async () => {
    harness = await startHarness({ script, recipe: { proxy: { session_idle_timeout_s: 0.2, max_sessions: 1 } } });
    const u1 = runtimeUser("hello", "idle1");
    const r1 = assemble((await streamChat(harness.url, openclaw([SYSTEM, u1]))).events);
    await waitFor(() => harness!.closed.length === 1, 5000); // closed for idleness
    await streamChat(harness.url, openclaw([SYSTEM, u1, { role: "assistant", content: r1.content }, { role: "user", content: "back again" }]));
    await streamChat(harness.url, openclaw([SYSTEM, runtimeUser("hello", "other")])); // evicts idle1 (max_sessions 1)
    await streamChat(harness.url, openclaw([SYSTEM, u1, { role: "assistant", content: r1.content }, { role: "user", content: "back again" }, { role: "assistant", content: "Sure." }, { role: "user", content: "and once more" }]), { "x-session-done": "1" });
    await waitFor(() => harness!.closed.filter((turn) => turn.sessionId === "idle1").length === 3, 5000);
    expect(harness.closed.filter((turn) => turn.sessionId === "idle1").map((turn) => [turn.turn, turn.closedBy])).toEqual([
      [0, "idle-timeout"],
      [1, "evicted"],
      [2, "session-done"],
    ]);
    const keys = (await recordKeys(harness)).map((key) => key.split(":").slice(0, 2).join(":"));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("a restarted proxy reads each session's last turn back from turns.jsonl and goes on from there", async () => {
    harness = await startHarness({ script });
    const u1 = runtimeUser("hello", "again1");
    const r1 = assemble((await streamChat(harness.url, openclaw([SYSTEM, u1]))).events);
    const history: ChatMessage[] = [SYSTEM, u1, { role: "assistant", content: r1.content }, { role: "user", content: "more" }];
    await streamChat(harness.url, openclaw(history), { "x-session-done": "1" });
    await waitFor(() => harness!.closed.length === 2);
    expect(await recordKeys(harness)).toEqual(["again1:0:next-request", "again1:1:session-done"]);
    const before = await readFile(path.join(harness.recordsDir, "turns.jsonl"), "utf8");
    await harness.close();
    // the same records folder, a new proxy: the conversation goes on
    harness = await startHarness({ script, turnsJsonl: before });
    await streamChat(harness.url, openclaw([...history, { role: "assistant", content: "Sure." }, { role: "user", content: "and more" }]), { "x-session-done": "1" });
    await waitFor(() => harness!.closed.length === 1);
    expect(harness.closed[0]).toMatchObject({ sessionId: "again1", turn: 2 });
  });
});

describe("readTurnNumbers", () => {
  it("reads each session's next turn from the opening of every line, the most recent session last, whatever the line length", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "turn-numbers-"));
    try {
      const file = path.join(folder, "turns.jsonl");
      expect([...(await readTurnNumbers(file))]).toEqual([]); // no file yet
      const line = (session: string, turn: number, size = 10) => `${JSON.stringify({ version: 1, session_id: session, turn, messages: [{ role: "user", content: "x".repeat(size) }] })}\n`;
      await writeFile(file, line("a", 0) + line("b\"ü", 0, 300_000) + line("a", 3) + line("a", 1) + "not a record\n" + line("c", 7));
      await appendFile(file, line("b\"ü", 4).slice(0, 60)); // a last line cut by a crash: its head is whole
      expect([...(await readTurnNumbers(file))]).toEqual([
        ["a", 4],
        ["c", 8],
        ['b"ü', 5],
      ]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
