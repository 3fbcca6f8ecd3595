// The policy engines' weight version behind slime's router: the router (its dce8b060 route table, 404 for the rest)
// has no weight-version route, so the engines its /workers lists are asked at /model_info, on both SGLangs.
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../contracts/events.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { engineUrls, readEngineVersions } from "../../orchestrator/weights/engine-weight-versions.ts";
import { WeightUpdateWatcher } from "../../orchestrator/weights/weight-update-watcher.ts";
import { ROUTER_ROUTES, startEngine, startRouter, type Listening } from "./router-standin.ts";

const open: Listening[] = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});
const started = async <T extends Listening>(server: Promise<T>): Promise<T> => {
  const value = await server;
  open.push(value);
  return value;
};

describe("weight version of the policy engines", () => {
  it("the router answers 404 for /get_weight_version; its /workers engines are asked, and the oldest version they serve is the version", async () => {
    const first = { current: "3" };
    const second = { current: "2" };
    const engines = [await started(startEngine("dce8b060", first)), await started(startEngine("dce8b060", second))];
    const router = await started(startRouter(engines.map((engine) => engine.url)));
    expect(ROUTER_ROUTES.some(([, path]) => path.includes("weight_version"))).toBe(false);
    const direct = await fetch(`${router.url}/get_weight_version`);
    expect([direct.status, await direct.text()]).toEqual([404, ""]);

    expect(await engineUrls(router.url)).toEqual(engines.map((engine) => engine.url));
    expect(await readEngineVersions(router.url)).toEqual({
      version: "2",
      engines: [
        { url: engines[0]!.url, version: "3" },
        { url: engines[1]!.url, version: "2" },
      ],
    });
    second.current = "3";
    expect((await readEngineVersions(router.url)).version).toBe("3");
  });

  it("an engine URL (no /workers: 404) is read itself; at 4ad990ba /get_weight_version is a 404 and /model_info has the version", async () => {
    const engine = await started(startEngine("4ad990ba", { current: "5" }));
    expect((await fetch(`${engine.url}/get_weight_version`)).status).toBe(404);
    expect(await engineUrls(engine.url)).toEqual([engine.url]);
    expect(await readEngineVersions(engine.url)).toEqual({ version: "5", engines: [{ url: engine.url, version: "5" }] });
  });

  it("nothing listening: no version, no engines", async () => {
    expect(await readEngineVersions("http://127.0.0.1:9", { timeoutMs: 500 })).toEqual({ version: null, engines: [] });
  });

  it("the watcher sees an update through the router once every engine has it", async () => {
    const first = { current: "default" };
    const second = { current: "default" };
    const engines = [await started(startEngine("dce8b060", first)), await started(startEngine("4ad990ba", second))];
    const router = await started(startRouter(engines.map((engine) => engine.url)));
    const bus = new EventBus();
    const events: RunEvent[] = [];
    bus.subscribe((event) => void events.push(event));
    const tracker = new WeightVersionTracker(0);
    const watcher = new WeightUpdateWatcher({ bus, tracker, readVersion: async () => (await readEngineVersions(router.url)).version });
    try {
      await watcher.poll();
      first.current = "1"; // the first engine has the new weights, the second not yet
      await watcher.poll();
      expect(events.filter((event) => event.type === "weights-update-end")).toEqual([]);
      second.current = "1";
      await watcher.poll();
      expect(events.filter((event) => event.type === "weights-update-end")).toMatchObject([{ toVersion: "1" }]);
      expect(tracker.current()).toBe(1);
    } finally {
      watcher.stop();
    }
  });
});
