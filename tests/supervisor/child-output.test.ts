// A child's output lines are bounded: a line longer than MAX_LINE_CHARS is cut (its head kept with a mark, the
// rest dropped), so a child printing hundreds of MiB without a newline cannot grow the orchestrator with it; the
// tails kept for exit results hold short lines only.
import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { ChildLog, TAIL_LINE_CHARS } from "../../launchers/supervisor/child-log.ts";
import { cutMark, readLines } from "../../launchers/supervisor/line-reader.ts";
import type { SupervisedChild } from "../../launchers/supervisor/supervised-child.ts";
import { eventually } from "./harness.ts";
import { nodeChildDefinition, supervise } from "./node-child.ts";

const children: SupervisedChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop(0)));
});

async function linesOf(chunks: Array<string | Buffer>, maxChars?: number): Promise<string[]> {
  const lines: string[] = [];
  await readLines(Readable.from(chunks), (line) => lines.push(line), maxChars);
  return lines;
}

describe("readLines", () => {
  it("splits on \\n, \\r\\n (also across chunks) and a lone \\r, and keeps a last line without a line end", async () => {
    expect(await linesOf(["a\nb\r", "\nc\r\n\nprogress 1\rprogress 2\rdone"])).toEqual(["a", "b", "c", "", "progress 1", "progress 2", "done"]);
    expect(await linesOf([Buffer.from("é"), Buffer.from("\n").subarray(0, 0), Buffer.from([0xc3]), Buffer.from([0xa9, 0x0a])])).toEqual(["é\u00e9"]);
  });

  it("cuts a line longer than the bound at once, drops the rest of it and goes on with the next line", async () => {
    const chunk = "x".repeat(64 * 1024);
    const chunks: string[] = [];
    for (let i = 0; i < 160; i++) chunks.push(chunk); // 10 MiB without a newline
    const lines: string[] = [];
    const reading = readLines(Readable.from([...chunks, "\nnext line\n"]), (line) => lines.push(line));
    await reading;
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe("x".repeat(64 * 1024) + cutMark(64 * 1024));
    expect(lines[1]).toBe("next line");
    expect(await linesOf(["abcdefgh", "ij\nk"], 4)).toEqual([`abcd${cutMark(4)}`, "k"]);
  });
});

describe("ChildLog tails", () => {
  it("keep each line short however long the child's line was", () => {
    const log = new ChildLog({ logsDir: `/tmp/openclaw-rl-tail-${process.pid}`, name: "spammer" });
    for (let i = 0; i < 100; i++) log.line("stderr", "y".repeat(60_000));
    log.line("stderr", "RuntimeError: the end");
    const tail = log.stderrTail(100);
    expect(tail.at(-1)).toBe("RuntimeError: the end");
    expect(tail.length).toBeLessThanOrEqual(80);
    expect(Math.max(...tail.map((line) => line.length))).toBeLessThan(TAIL_LINE_CHARS + 100);
    log.close();
  });
});

describe("a supervised child printing a very long line", () => {
  it("logs its head with a mark, then the lines after it", async () => {
    const script = "process.stdout.write('z'.repeat(8 << 20)); process.stdout.write('\\nafter the long line\\n'); setInterval(() => {}, 1000);";
    const { child } = supervise(nodeChildDefinition("long-liner", script));
    children.push(child);
    child.start();
    const file = child.status().logFile!;
    const messages = await eventually(() => {
      const found = readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as { msg: string; stream?: string });
      return found.some((entry) => entry.msg === "after the long line") && found;
    }, "the line after the long one");
    const output = messages.filter((entry) => entry.stream === "stdout").map((entry) => entry.msg);
    expect(output).toEqual(["z".repeat(64 * 1024) + cutMark(64 * 1024), "after the long line"]);
  });
});
