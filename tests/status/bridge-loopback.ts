// The sample store and the bridge over loopback, wired as orchestrator/run.ts wires them (one bus, one weight-version
// owner), for status tests that drive a trainer over HTTP. Knows nothing of the proxy or judging.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { resetVersionsForTrainerRestart } from "../../orchestrator/weights/trainer-restart.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";

export interface BridgeLoopback {
  store: SampleStore;
  bridge: BridgeServer;
  endpoint: { url: string; token: string };
  bus: EventBus;
  versions: WeightVersionTracker;
  close(): Promise<void>;
}

/** `maxWaitMs`: training.max_wait_s in ms (a partial batch after that wait; 0, off, by default). */
export async function openBridgeLoopback(prefix: string, maxWaitMs = 0): Promise<BridgeLoopback> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const bus = new EventBus();
  const versions = new WeightVersionTracker(0);
  const store = await SampleStore.open(join(dir, "store"), { staleness: new StalenessPolicy(versions, 50) });
  const bridge = new BridgeServer({ store, bus, recordsDir: dir, maxWaitMs, onClientReplaced: () => resetVersionsForTrainerRestart(versions, bus, "slime restarted") });
  const endpoint = await bridge.start({ host: "127.0.0.1", port: 0 });
  return {
    store, bridge, endpoint, bus, versions,
    close: async () => {
      await bridge.close();
      await store.close();
    },
  };
}
