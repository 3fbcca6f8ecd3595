// Each child's log is capped: past its size it moves to <name>.log.1 (replacing the one before) and a new
// <name>.log starts with a line saying so, so a child spamming lines cannot fill the disk.
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChildLog } from "../../launchers/supervisor/child-log.ts";
import { CHILD_LOG_MAX_BYTES } from "../../launchers/supervisor/rotating-log-file.ts";
import type { SupervisedChild } from "../../launchers/supervisor/supervised-child.ts";
import { eventually } from "./harness.ts";
import { nodeChildDefinition, supervise } from "./node-child.ts";

const children: SupervisedChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop(0)));
});

const entries = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as { msg: string; child: string });

describe("a child's log", () => {
  it("rotates to <name>.log.1 once it would pass its cap, and starts again with a note", () => {
    const logsDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-rotate-"));
    const log = new ChildLog({ logsDir, name: "spammer", maxBytes: 20_000 });
    for (let i = 0; i < 2000; i++) log.line("stdout", `line ${i} ${"s".repeat(80)}`);
    log.close();
    const current = path.join(logsDir, "spammer.log");
    expect(statSync(current).size).toBeLessThanOrEqual(20_000);
    expect(statSync(`${current}.1`).size).toBeLessThanOrEqual(20_000);
    expect(existsSync(`${current}.2`)).toBe(false);
    const lines = entries(current);
    expect(lines[0]).toMatchObject({ child: "spammer", msg: "log rotated: the lines before this one are in spammer.log.1" });
    expect(lines.at(-1)!.msg).toMatch(/^line 1999 /);
    // the two files hold the latest lines, in order, without a gap between them
    const numbers = [...entries(`${current}.1`), ...lines].filter((entry) => entry.msg.startsWith("line ")).map((entry) => Number(entry.msg.split(" ")[1]));
    expect(numbers).toEqual(numbers.map((_, index) => numbers[0]! + index));
  });

  it("counts what an earlier run left in the file, and has a 64 MiB default cap", () => {
    expect(CHILD_LOG_MAX_BYTES).toBe(64 * 1024 * 1024);
    const logsDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-rotate-"));
    const first = new ChildLog({ logsDir, name: "judge", maxBytes: 5000 });
    for (let i = 0; i < 30; i++) first.line("stdout", "x".repeat(100));
    first.close();
    const second = new ChildLog({ logsDir, name: "judge", maxBytes: 5000 });
    for (let i = 0; i < 30; i++) second.line("stdout", "y".repeat(100));
    second.close();
    expect(statSync(path.join(logsDir, "judge.log")).size).toBeLessThanOrEqual(5000);
    expect(existsSync(path.join(logsDir, "judge.log.1"))).toBe(true);
  });

  it("of a supervised child that spams lines stays within its cap", async () => {
    const script = "const line = 'spam '.repeat(40) + '\\n'; const spam = () => { for (let i = 0; i < 2000; i++) process.stdout.write(line); setImmediate(spam); }; spam();";
    const { child, logsDir } = supervise(nodeChildDefinition("spammer", script), [], { logMaxBytes: 1 << 20 });
    children.push(child);
    child.start();
    const rotated = path.join(logsDir, "spammer.log.1");
    await eventually(() => existsSync(rotated) && statSync(rotated).size > 0, "a rotation");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await child.stop(0);
    expect(statSync(path.join(logsDir, "spammer.log")).size).toBeLessThanOrEqual(1 << 20);
    expect(statSync(rotated).size).toBeLessThanOrEqual(1 << 20);
  });
});
