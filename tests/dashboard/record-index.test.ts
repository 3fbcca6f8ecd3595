// The records index behind turn details: incremental scans of appended JSONL, partial lines, a replaced
// file, oversized records, and the redaction of secrets and token arrays before anything reaches the page.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RecordIndex } from "../../orchestrator/status/dashboard/record-index.ts";
import { redactRecord, turnKey, turnKeyOf } from "../../orchestrator/status/dashboard/turn-details.ts";

const madeDirs: string[] = [];
afterAll(() => madeDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function freshFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "dashboard-index-"));
  madeDirs.push(dir);
  return join(dir, "turns.jsonl");
}

describe("RecordIndex", () => {
  it("says the file is missing, then finds records appended later (newest record of a key wins)", async () => {
    const path = freshFile();
    const index = new RecordIndex(path, turnKeyOf);
    expect(await index.lookup(turnKey("s", 0))).toMatchObject({ found: false, reason: "missing" });
    writeFileSync(path, `${JSON.stringify({ sessionId: "s", turn: 0, text: "first" })}\n${JSON.stringify({ session_id: "t", turn_index: 4, text: "snake" })}\n`);
    expect(await index.lookup(turnKey("s", 0))).toEqual({ found: true, record: { sessionId: "s", turn: 0, text: "first" } });
    expect(await index.lookup(turnKey("t", 4))).toMatchObject({ found: true, record: { text: "snake" } });
    appendFileSync(path, `not json\n${JSON.stringify({ sessionId: "s", turn: 0, text: "again" })}\n`);
    expect(await index.lookup(turnKey("s", 0))).toMatchObject({ found: true, record: { text: "again" } });
    expect(await index.lookup(turnKey("s", 1))).toMatchObject({ found: false, reason: "not-recorded" });
  });

  it("indexes a torn last line only once it is complete, and starts over when the file shrinks", async () => {
    const path = freshFile();
    const index = new RecordIndex(path, turnKeyOf);
    const line = JSON.stringify({ sessionId: "s", turn: 1, text: "x".repeat(3 * 1024 * 1024) }); // spans chunks
    writeFileSync(path, line.slice(0, 2_000_000));
    expect(await index.lookup(turnKey("s", 1))).toMatchObject({ found: false, reason: "not-recorded" });
    appendFileSync(path, `${line.slice(2_000_000)}\n`);
    const found = await index.lookup(turnKey("s", 1));
    expect(found.found && (found.record as { text: string }).text.length).toBe(3 * 1024 * 1024);
    writeFileSync(path, `${JSON.stringify({ sessionId: "n", turn: 0 })}\n`);
    expect(await index.lookup(turnKey("s", 1))).toMatchObject({ found: false, reason: "not-recorded" });
    expect(await index.lookup(turnKey("n", 0))).toMatchObject({ found: true });
  });

  it("reports an oversized record by its size instead of reading it, and forgets the oldest keys past its bound", async () => {
    const path = freshFile();
    const index = new RecordIndex(path, turnKeyOf, { maxRecordBytes: 1024, maxEntries: 3 });
    writeFileSync(path, `${JSON.stringify({ sessionId: "big", turn: 0, text: "y".repeat(5000) })}\n`);
    const lookup = await index.lookup(turnKey("big", 0));
    expect(lookup).toMatchObject({ found: false, reason: "too-large" });
    expect(!lookup.found && lookup.detail).toMatch(/the record is 50\d\d bytes; the dashboard reads at most 1024/);
    for (let turn = 1; turn <= 4; turn++) appendFileSync(path, `${JSON.stringify({ sessionId: "s", turn })}\n`);
    await index.refresh();
    expect(index.size).toBe(3);
    expect(await index.lookup(turnKey("s", 1))).toMatchObject({ found: false, reason: "not-recorded" });
    expect(await index.lookup(turnKey("s", 4))).toMatchObject({ found: true });
  });
});

describe("redactRecord", () => {
  it("masks keys and bearer/sk- values, summarises token arrays and clips huge strings", () => {
    const redacted = redactRecord({
      headers: { Authorization: "Bearer abcdefghijklmnop", "x-api-key": "k" },
      apiKey: "sk-abcdefghijklmnopqrstuvwxyz",
      note: "my key is sk-abcdefghijklmnopqrstuvwxyz ok",
      promptIds: Array.from({ length: 500 }, (_, index) => index),
      tools: [1, 2, 3],
      text: "z".repeat(100_000),
    }) as Record<string, unknown>;
    expect(redacted.headers).toEqual({ Authorization: "[redacted]", "x-api-key": "[redacted]" });
    expect(redacted.apiKey).toBe("[redacted]");
    expect(redacted.note).toBe("my key is [redacted] ok");
    expect(redacted.promptIds).toBe("[500 values not shown]");
    expect(redacted.tools).toEqual([1, 2, 3]);
    expect(redacted.text).toMatch(/… \[34464 more characters\]$/);
  });
});
