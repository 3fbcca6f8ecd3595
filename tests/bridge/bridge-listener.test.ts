// The bridge's listener (orchestrator/bridge/bridge-listener.ts), which `start` binds before it builds the launch
// plan: it writes nothing until served, answers 503 in the bridge's error shape until then (the Python client takes a
// 5xx as "not up yet" and retries), rebinds a previous run's port and token, and closes once.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BridgeListener } from "../../orchestrator/bridge/bridge-listener.ts";
import { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

const hello = (url: string, token: string) =>
  fetch(`${url}/v1/hello`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify({ version: 1, type: "hello", session: "s1", pid: 7, routers: { policy: null, judge: "http://127.0.0.1:9" } }),
  });

describe("the bridge listener", () => {
  it("is bound with an address and token before anything is written, answers 503 until a BridgeServer serves it, then the server answers", async () => {
    const dir = await mkdtemp(join(tmpdir(), "openclaw-bridge-listener-"));
    const listener = await BridgeListener.open({ host: "127.0.0.1", port: 0, recordsDir: dir });
    opened.push(listener);
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(listener.token).toMatch(/^[0-9a-f]{64}$/);
    expect(existsSync(join(dir, "bridge.json"))).toBe(false);
    const early = await hello(listener.url, listener.token);
    expect(early.status).toBe(503);
    expect(await early.json()).toEqual({ version: 1, type: "error", code: "STARTING", message: "the orchestrator is starting; try again shortly" });

    const store = await SampleStore.open(join(dir, "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(), 2) });
    opened.push(store);
    const bridge = new BridgeServer({ store, bus: new EventBus(), recordsDir: dir });
    const heard: unknown[] = [];
    bridge.onHello((said) => heard.push(said));
    expect(await bridge.serve(listener)).toEqual({ url: listener.url, token: listener.token });
    expect(JSON.parse(await readFile(join(dir, "bridge.json"), "utf8"))).toEqual({ url: listener.url, token: listener.token });
    expect((await hello(listener.url, "wrong")).status).toBe(401);
    const answer = await hello(listener.url, listener.token);
    expect(answer.status).toBe(200);
    expect(heard).toEqual([{ routers: { policy: null, judge: "http://127.0.0.1:9" }, pid: 7, at: expect.any(Number) }]);
    expect(bridge.hello()).toEqual(heard[0]);

    await bridge.close();
    await listener.close(); // (closing again is a no-op)
    await expect(hello(listener.url, listener.token)).rejects.toThrow();
  });

  it("rebinds the port and token of a previous run's bridge.json when the port is free, and draws new ones when it is taken", async () => {
    const dir = await mkdtemp(join(tmpdir(), "openclaw-bridge-listener-"));
    const first = await BridgeListener.open({ host: "127.0.0.1", port: 0, recordsDir: dir });
    await writeFile(join(dir, "bridge.json"), JSON.stringify({ url: first.url, token: first.token }));
    const taken = await BridgeListener.open({ host: "127.0.0.1", port: 0, recordsDir: dir });
    opened.push(taken);
    expect([taken.url === first.url, taken.token === first.token]).toEqual([false, false]);
    await first.close();
    const again = await BridgeListener.open({ host: "127.0.0.1", port: 0, recordsDir: dir });
    opened.push(again);
    expect({ url: again.url, token: again.token }).toEqual({ url: first.url, token: first.token });
  });
});
