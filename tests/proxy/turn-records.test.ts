import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { turnRecord, TurnRecords } from "../../orchestrator/records/turn-records.ts";

const turn: ClosedTurn = {
  version: 1,
  sessionId: "s",
  turn: 3,
  decidedBy: { session: "header:x-session-id", turnType: "agent-conversation", reason: "test" },
  messages: [{ role: "user", content: "hi" }],
  tools: null,
  promptIds: Int32Array.of(1, 2),
  responseIds: [3],
  responseLogProbs: [-0.5],
  response: { role: "assistant", content: "yo" },
  finishReason: "stop",
  weightVersions: [{ version: "7", start: 0, end: 1 }],
  approximate: false,
  startedAt: 1,
  firstTokenAt: 2,
  endedAt: 3,
  nextState: { role: "user", messages: [{ role: "user", content: "thanks" }], text: "thanks" },
  closedBy: "next-request",
};

describe("turn records", () => {
  it("appends (never truncates) one line per turn to a 0600 file", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "records-"));
    try {
      const file = path.join(folder, "turns.jsonl");
      await writeFile(file, '{"earlier":true}\n', { mode: 0o644 });
      const records = new TurnRecords(folder);
      await Promise.all([records.append(turn), records.append({ ...turn, turn: 4 })]);
      const lines = (await readFile(file, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines[0]).toEqual({ earlier: true });
      expect(lines.slice(1).map((line) => line.turn)).toEqual([3, 4]);
      expect(lines[1]).toMatchObject({ session_id: "s", prompt_length: 2, response_ids: [3], response_log_probs: [-0.5], weight_versions: [{ version: "7", start: 0, end: 1 }], next_state: { role: "user", text: "thanks" }, closed_by: "next-request" });
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      await records.close();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("writes each line exactly as JSON.stringify of its record, long message texts from a cached copy of their JSON", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "records-"));
    try {
      const awkward = 'He said "hi"\n\ttab \\ back \u0000 nul \u2028 sep é 中文 😀 '; // characters JSON escapes, and wide ones
      const system = `You are an agent. ${awkward}`.repeat(200); // ~12 KB
      const paste = `file contents ${awkward}`.repeat(120);
      const reply = `A long reply ${awkward}`.repeat(100);
      const lookalike = `\u0000deadbeefdeadbeef:0 ${awkward}`.repeat(100); // shaped like the stand-in marker
      const long: ClosedTurn = {
        ...turn,
        messages: [
          { role: "system", content: system },
          { role: "user", content: paste, name: "me" },
          { role: "assistant", content: reply, reasoning_content: "short" },
          { role: "user", content: [{ type: "text", text: paste }] },
          { role: "user", content: lookalike },
          { role: "user", content: "short one" },
          { role: "tool", content: `big output ${awkward}`.repeat(5000), tool_call_id: "call_1" }, // JSON over the cache's 256 KB: written, not kept
        ],
        nextState: { role: "user", messages: [{ role: "user", content: paste }, { role: "user", content: "ok" }], text: paste },
      };
      const records = new TurnRecords(folder);
      await records.append(long);
      await records.append({ ...long, turn: 4 }); // the long texts' JSON now from the cache
      await records.append(turn); // no long text
      const lines = (await readFile(path.join(folder, "turns.jsonl"), "utf8")).split("\n");
      expect(lines.at(-1)).toBe("");
      expect(lines.slice(0, -1)).toEqual([JSON.stringify(turnRecord(long)), JSON.stringify(turnRecord({ ...long, turn: 4 })), JSON.stringify(turnRecord(turn))]);
      await records.close();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("reports a failed write instead of throwing", async () => {
    const errors: Error[] = [];
    const records = new TurnRecords("/dev/null/not-a-folder", (error) => errors.push(error));
    await records.append(turn);
    expect(errors).toHaveLength(1);
    expect(records.writeFailures).toBe(1);
  });
});
