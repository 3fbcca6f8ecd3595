// kill -9 of an orchestrator process (the bridge fixture child) after put() resolved and before delivery, and
// between delivery and acknowledgement: after a restart every sample arrives exactly once in acknowledged batches.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FixtureProcess, TestBridgeClient } from "../bridge/fixture-process.ts";

const children: FixtureProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.child.exitCode === null) await child.stop();
});

async function start(dir: string, ...args: string[]): Promise<FixtureProcess> {
  const child = await FixtureProcess.start(dir, ...args);
  children.push(child);
  return child;
}

async function drainAll(child: FixtureProcess, size: number, into: string[]): Promise<void> {
  const client = new TestBridgeClient(child.info.url, child.info.token);
  await client.hello();
  for (let rollout = 0; ; rollout++) {
    const batch = await client.batch(rollout, size);
    if (!batch) return;
    expect(await client.ack(rollout, batch.batchId)).toBe(200);
    into.push(...batch.samples.map((sample) => sample.id));
  }
}

describe("store crash recovery (kill -9 of the orchestrator)", () => {
  it("keeps committed samples when killed between commit and delivery", async () => {
    const dir = await mkdtemp(join(tmpdir(), "openclaw-crash-"));
    const first = await start(dir);
    expect(await first.command("put 12")).toMatchObject({ ok: "put", counts: { ready: 12 } }); // put() resolved: durable
    await first.kill9();
    const second = await start(dir);
    expect(second.info.counts).toEqual({ ready: 12, delivered: 0, acknowledged: 0, droppedStale: 0 });
    expect(second.info.url).toBe(first.info.url); // same port and token: slime's env still points here
    const received: string[] = [];
    await drainAll(second, 4, received);
    expect(received.sort()).toEqual(Array.from({ length: 12 }, (_, index) => `session-${index}:${index}`).sort());
  });

  it("keeps a delivered but unacknowledged batch out across kill -9: its ack still counts, it is never handed out twice", async () => {
    const dir = await mkdtemp(join(tmpdir(), "openclaw-crash-"));
    const first = await start(dir, "--samples", "9");
    const client = new TestBridgeClient(first.info.url, first.info.token);
    await client.hello();
    const acknowledged = (await client.batch(0, 3))!;
    expect(await client.ack(0, acknowledged.batchId)).toBe(200);
    const trained = (await client.batch(1, 3))!; // delivered (and trained), not acknowledged yet
    await first.kill9();
    const second = await start(dir);
    expect(second.info.counts).toEqual({ ready: 3, delivered: 3, acknowledged: 3, droppedStale: 0 });
    const sameClient = new TestBridgeClient(second.info.url, second.info.token, client.session);
    await sameClient.hello();
    const asked = (await sameClient.batch(1, 3))!; // the same rollout asked again (its answer was lost): the same batch
    expect(asked.batchId).toBe(trained.batchId);
    expect(await sameClient.ack(1, trained.batchId)).toBe(200);
    const received = [...acknowledged.samples, ...trained.samples].map((sample) => sample.id);
    await drainAll(second, 3, received);
    expect(received).toHaveLength(9);
    expect(new Set(received).size).toBe(9);
  });
});
