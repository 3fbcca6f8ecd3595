// The sandbox for real: no network inside, the wall-clock timeout, the CPU, memory, process and file-size limits,
// output caps, and the folder removed on close with nothing left running in it.
import { existsSync } from "node:fs";
import { readdir, readlink } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { Sandbox } from "../../environments/sandbox.ts";
import { describeRun } from "../../environments/sandbox-run.ts";

const PYTHON = "/usr/bin/python3";
let sandbox: Sandbox | null = null;

afterEach(async () => {
  await sandbox?.close();
  sandbox = null;
});

/** Processes whose working folder is `folder` (anything a command left running). */
async function processesIn(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => "");
    if (cwd.startsWith(folder)) found.push(pid);
  }
  return found;
}

describe("the sandbox", () => {
  it("has no network: only lo inside, and a connection fails", async () => {
    sandbox = await Sandbox.open();
    // (the kernel's own list: iproute2's `ip` is not on every machine)
    const links = await sandbox.run("bash", ["-c", "tail -n +3 /proc/net/dev | cut -d: -f1"]);
    expect(links.exitCode).toBe(0);
    expect(links.stdout.split(/\s+/).filter(Boolean)).toEqual(["lo"]);
    const connect = await sandbox.run(PYTHON, ["-c", "import socket; socket.create_connection(('1.1.1.1', 53), timeout=2); print('connected')"]);
    expect(connect.exitCode).toBe(1);
    expect(connect.stdout).not.toContain("connected");
    expect(connect.stderr).toMatch(/Network is unreachable|OSError/);
  });

  it("runs in its own folder and keeps what a command wrote there", async () => {
    sandbox = await Sandbox.open();
    const run = await sandbox.run("bash", ["-c", "pwd; echo hi > hello.txt; cat hello.txt"]);
    expect(run.stdout).toBe(`${sandbox.folder}\nhi`);
    expect(existsSync(`${sandbox.folder}/hello.txt`)).toBe(true);
  });

  it("kills an endless command at the wall-clock timeout, and says so", async () => {
    sandbox = await Sandbox.open({ wallTimeoutMs: 1500 });
    const started = Date.now();
    const run = await sandbox.run("bash", ["-c", "sleep 60 & sleep 60"]);
    expect(Date.now() - started).toBeLessThan(30_000); // the command alone would run 60 s
    expect(run.timedOut).toBe(true);
    expect(describeRun(run)).toContain("error: timed out after 1.5 s");
    expect(await processesIn(sandbox.folder)).toEqual([]);
  });

  it("stops a busy loop at the CPU time limit", async () => {
    sandbox = await Sandbox.open({ cpuSeconds: 1, wallTimeoutMs: 20_000 });
    const run = await sandbox.run(PYTHON, ["-c", "while True: pass"]);
    expect(run.timedOut).toBe(false);
    expect(run.signal).toBe("SIGXCPU");
    expect(describeRun(run)).toContain("error: killed by SIGXCPU (CPU time limit 1 s)");
  });

  it("stops a memory bomb at the memory limit", async () => {
    sandbox = await Sandbox.open({ memoryBytes: 256 * 1024 * 1024 });
    const run = await sandbox.run(PYTHON, ["-c", "x = bytearray(1024 ** 3); print('allocated')"]);
    expect(run.stdout).not.toContain("allocated");
    expect(run.stderr).toContain("MemoryError");
    expect(describeRun(run)).toContain("error: exit code 1");
  });

  it("stops a fork bomb at the process limit, and nothing it forked outlives the command", async () => {
    sandbox = await Sandbox.open({ processes: 20, wallTimeoutMs: 20_000 });
    const bomb = ["import os, time", "n = 0", "try:", "    while True:", "        if os.fork() == 0:", "            time.sleep(60); os._exit(0)", "        n += 1", "except OSError as e:", "    print('forks', n, type(e).__name__)"].join("\n");
    const run = await sandbox.run(PYTHON, ["-c", bomb]);
    const [, forks, error] = run.stdout.trim().split(" ");
    expect(error).toBe("BlockingIOError");
    expect(Number(forks)).toBeLessThan(20);
    expect(run.timedOut).toBe(false);
    expect(await processesIn(sandbox.folder)).toEqual([]);
  });

  it("caps a file at the file-size limit", async () => {
    sandbox = await Sandbox.open({ fileBytes: 1024 * 1024 });
    const run = await sandbox.run("bash", ["-c", "head -c 5000000 /dev/zero > big; stat -c %s big"]);
    expect(run.stdout.trim()).toBe(String(1024 * 1024));
    expect(run.stderr).toContain("File size limit exceeded");
  });

  it("caps output and stops a command that prints without end", async () => {
    sandbox = await Sandbox.open({ outputBytes: 4000, wallTimeoutMs: 20_000 });
    const run = await sandbox.run(PYTHON, ["-c", "while True: print('x' * 99)"]);
    expect(run.outputCapped).toBe(true);
    expect(run.timedOut).toBe(false);
    expect(run.stdout.length).toBeLessThanOrEqual(4000);
    expect(describeRun(run)).toContain("error: output passed 4000 bytes");
  });

  it("removes its folder on close, even one a command made unwritable", async () => {
    sandbox = await Sandbox.open();
    const folder = sandbox.folder;
    await sandbox.run("bash", ["-c", "mkdir -p locked/inner && touch locked/inner/f && chmod 000 locked/inner locked"]);
    await sandbox.close();
    expect(existsSync(folder)).toBe(false);
    await expect(sandbox.run("true", [])).rejects.toThrow(/closed/);
  });
});
