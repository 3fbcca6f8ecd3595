// kill -9 of the Python client in the middle of a batch, and of the orchestrator while the Python client waits:
// after the restart every sample arrives exactly once in acknowledged batches (real native/ client, real bridge).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { FixtureProcess, REPO_ROOT } from "./fixture-process.ts";

const children: FixtureProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.child.exitCode === null) await child.stop();
});

function python(script: string, args: string[], fixture: FixtureProcess) {
  return execa("/usr/bin/python3", [join("tests/bridge/fixtures", script), ...args], {
    cwd: REPO_ROOT,
    env: { PYTHONPATH: join(REPO_ROOT, "native"), OPENCLAW_RL_BRIDGE: fixture.info.url, OPENCLAW_RL_BRIDGE_TOKEN: fixture.info.token },
    buffer: false,
    reject: false,
    stdout: "pipe",
  });
}

async function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  const reader = createInterface({ input: stream });
  for await (const line of reader) {
    reader.close();
    return line;
  }
  throw new Error("no output");
}

async function drainedIds(fixture: FixtureProcess, rollouts: number, size: number): Promise<string[][]> {
  const child = python("drain_rollouts.py", [String(rollouts), String(size)], fixture);
  const batches: string[][] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith("{")) batches.push((JSON.parse(line) as { ids: string[] }).ids);
  }
  expect((await child).exitCode).toBe(0);
  return batches;
}

describe("bridge crash recovery with the Python client", () => {
  it("re-delivers the batch of a Python client killed before it acknowledged", async () => {
    const fixture = await FixtureProcess.start(await mkdtemp(join(tmpdir(), "openclaw-pycrash-")), "--samples", "12");
    children.push(fixture);
    const holder = python("hold_batch.py", ["4"], fixture);
    expect(await firstLine(holder.stdout)).toBe("received");
    holder.kill("SIGKILL");
    await holder;
    expect(await fixture.command("stats")).toMatchObject({ stats: { counts: { ready: 8, delivered: 4 } } });
    const batches = await drainedIds(fixture, 3, 4); // a new process: its hello returns the held batch
    const ids = batches.flat();
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
    expect(await fixture.command("stats")).toMatchObject({ stats: { counts: { ready: 0, delivered: 0, acknowledged: 12 } } });
  });

  it("reconnects after the orchestrator is killed while the Python client waits", async () => {
    const dir = await mkdtemp(join(tmpdir(), "openclaw-pycrash-"));
    const first = await FixtureProcess.start(dir, "--samples", "2");
    children.push(first);
    const drain = python("drain_rollouts.py", ["1", "4"], first);
    const lines = createInterface({ input: drain.stdout });
    // its hello is in (however long Python took to start): the batch request that follows long-polls for 4 of 2
    while (drain.exitCode === null && (await first.command("stats")).hello === null) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(drain.exitCode, "the Python client ended before its hello").toBeNull();
    await first.kill9();
    const second = await FixtureProcess.start(dir, "--first", "100"); // new sample ids for the later puts
    children.push(second);
    expect(second.info.url).toBe(first.info.url);
    await second.command("put 2");
    const output: string[] = [];
    for await (const line of lines) if (line.startsWith("{")) output.push(line);
    expect((await drain).exitCode).toBe(0);
    const ids = (JSON.parse(output[0]!) as { ids: string[] }).ids;
    expect(new Set(ids).size).toBe(4);
    expect(await second.command("stats")).toMatchObject({ stats: { counts: { acknowledged: 4 } } });
  });
});
