// JsonlAppendFile on a real file: a group of more lines than one writev takes (IOV_MAX is 1024; each line is two
// buffers) still lands whole and in order, in a file of mode 0600.
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlAppendFile } from "../../orchestrator/records/jsonl-append-file.ts";

describe("JsonlAppendFile on disk", () => {
  it("writes 3000 lines appended at once, in order, mode 0600", async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), "jsonl-")), "records", "turns.jsonl");
    const appender = new JsonlAppendFile(file);
    await appender.append({ first: true, text: "héllo → wörld" });
    await Promise.all(Array.from({ length: 3000 }, (_, index) => appender.append({ index, text: "x".repeat(index % 50) })));
    await appender.close();
    const lines = (await readFile(file, "utf8")).split("\n");
    expect(lines.pop()).toBe("");
    expect(JSON.parse(lines[0]!)).toEqual({ first: true, text: "héllo → wörld" });
    expect(lines.slice(1).map((line) => (JSON.parse(line) as { index: number }).index)).toEqual(Array.from({ length: 3000 }, (_, index) => index));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
