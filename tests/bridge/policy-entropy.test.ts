// The policy's entropy from a training step's metrics to status and the dashboard: openclaw_rl's own
// (openclaw_rl_entropy, which every loss of ours reports) wins over slime's entropy_loss, and each says where it came from.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatStatus } from "../../cli/commands/status-format.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { statusSnapshotSchema } from "../../contracts/status.ts";
import { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { DashboardHistory } from "../../orchestrator/status/dashboard/dashboard-history.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";

const recipe = recipeSchema.parse({ name: "t", method: "binary", engine: { kind: "rehearsal" }, training: { batch_size: 4 } });
const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function bridgeWithScreens() {
  const dir = mkdtempSync(path.join(tmpdir(), "entropy-"));
  const store = await SampleStore.open(path.join(dir, "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(), 2) });
  const bus = new EventBus();
  const bridge = new BridgeServer({ store, bus, recordsDir: dir });
  const endpoint = await bridge.start({ host: "127.0.0.1", port: 0 });
  const status = new StatusTracker(bus, recipe);
  const dashboard = new DashboardHistory({}, recipe.method, recipe.training.batch_size);
  bus.subscribe((event) => dashboard.apply(event));
  closers.push(() => store.close(), () => bridge.close(), () => status.close());
  let step = 0;
  const postStep = async (metrics: Record<string, number>) => {
    const body = { version: 1, type: "trainer-metrics", session: "s", pid: 7, step: ++step, metrics };
    const response = await fetch(`${endpoint.url}/v1/metrics`, { method: "POST", headers: { authorization: `Bearer ${endpoint.token}` }, body: JSON.stringify(body) });
    expect(response.status).toBe(204);
    const snapshot = statusSnapshotSchema.parse(status.snapshot());
    return { status: snapshot.trainer.entropy, text: formatStatus(snapshot), dashboard: dashboard.snapshot().totals.trainer.entropy };
  };
  return { postStep };
}

describe("the policy's entropy on status and the dashboard", () => {
  it("shows openclaw_rl's entropy where a loss of ours reported it, labelled, not slime's entropy_loss beside it", async () => {
    const { postStep } = await bridgeWithScreens();
    // the fork's binary step as the harness saw it: slime's entropy_loss 4.73, the policy's entropy 1.94
    const shown = await postStep({ loss: 0.125, grad_norm: 1.5, entropy_loss: 4.733747, openclaw_rl_entropy: 1.938861 });
    expect(shown.status).toEqual({ value: 1.938861, source: "openclaw_rl" });
    expect(shown.dashboard).toEqual(shown.status);
    expect(shown.text).toContain("entropy 1.9389 (from openclaw_rl)");
    expect(shown.text).not.toContain("4.7337");
  });

  it("falls back to slime's entropy_loss, labelled slime, and shows none when the step has neither", async () => {
    const { postStep } = await bridgeWithScreens();
    const slime = await postStep({ loss: 0.125, entropy_loss: 2.5 });
    expect(slime.status).toEqual({ value: 2.5, source: "slime" });
    expect(slime.dashboard).toEqual(slime.status);
    expect(slime.text).toContain("entropy 2.5000 (from slime)");
    const none = await postStep({ loss: 0.125 });
    expect(none.status).toBeNull();
    expect(none.dashboard).toBeNull();
    expect(none.text).not.toContain("entropy");
  });
});
