// The one staleness owner (orchestrator/weights): a WeightVersionTracker holds the version, a StalenessPolicy asks it,
// and every user compares through that policy: the store's drops, the batch frame's metrics, the rollout budget's
// window, and the judging thread, which reads the run tracker's version from the cell it shares.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assembleBatchFrame } from "../../orchestrator/bridge/batch-frame.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { resetVersionsForTrainerRestart } from "../../orchestrator/weights/trainer-restart.ts";
import { WeightUpdateWatcher } from "../../orchestrator/weights/weight-update-watcher.ts";
import { sharedWeightVersion, WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { makeSample } from "../bridge/sample-factory.ts";

let store: SampleStore | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
});

describe("the staleness rule", () => {
  it("is stale more than max_staleness versions behind the oldest token; default is 0; labels that are not slime's never count", () => {
    const tracker = new WeightVersionTracker();
    const policy = new StalenessPolicy(tracker, 2);
    tracker.observe("10");
    expect(policy.stalenessOf(["9", "8"])).toBe(2);
    expect(policy.isStale(["9", "8"])).toBe(false);
    expect(policy.isStale(["9", "7"])).toBe(true);
    expect(policy.staleReason(["9", "7"])).toBe("oldest token from weight version 7, current 10, max_staleness 2");
    expect(policy.staleReason(["8"])).toBeNull();
    expect(policy.isStale(["default"])).toBe(true); // "default" is before the first sync: version 0
    expect(policy.isStale(["v2", "abc"])).toBe(false); // nothing to compare
    expect(policy.stalenessOf([])).toBe(0);
    expect(policy.stalenessOf(["12"])).toBe(0); // a token newer than the tracker's version is not "behind"
  });

  it("says which tokens are on their last chance: the next version makes them stale", () => {
    const tracker = new WeightVersionTracker();
    const policy = new StalenessPolicy(tracker, 2);
    tracker.observe("10");
    expect(policy.isLastChance(["9"])).toBe(false);
    expect(policy.isLastChance(["9", "8"])).toBe(true);
    expect(policy.isStale(["9", "8"])).toBe(false);
    expect(policy.isLastChance(["v2"])).toBe(false); // no known version: never stale, never last
    expect(new StalenessPolicy(tracker, 0).isLastChance(["10"])).toBe(true); // max_staleness 0: only the current version, once
  });

  it("sizes the window of samples that may wait in line: max_staleness × batch_size", () => {
    expect(new StalenessPolicy(new WeightVersionTracker(), 5).window(4)).toBe(20);
    expect(new StalenessPolicy(new WeightVersionTracker(), 0).window(4)).toBe(0);
  });

  it("asks its version source each time: it follows the tracker's observe and reset, and a given version when asked with one", () => {
    const tracker = new WeightVersionTracker();
    const policy = new StalenessPolicy(tracker, 1);
    expect(policy.isStale(["3"])).toBe(false);
    tracker.observe("5");
    expect(policy.current()).toBe(5);
    expect(policy.isStale(["3"])).toBe(true);
    tracker.observe("4"); // a late answer never moves it back
    expect(policy.current()).toBe(5);
    tracker.reset(); // slime restarted: its versions count from 0 again
    expect(policy.isStale(["3"])).toBe(false);
    expect(policy.staleReason(["3"], 9)).toBe("oldest token from weight version 3, current 9, max_staleness 1");
  });

  it("the tracker labels the version for status only once a slime version was seen", () => {
    const tracker = new WeightVersionTracker();
    expect(tracker.label()).toBeNull();
    expect(tracker.observe("v2")).toBe(false);
    expect(tracker.label()).toBeNull();
    expect(tracker.observe("default")).toBe(true);
    expect(tracker.label()).toBe("0");
    tracker.observe("7");
    tracker.reset();
    expect(tracker.label()).toBe("0"); // (reset: the version went back, it is still known)
  });
});

describe("one owner, every user", () => {
  it("a reader of the tracker's shared cell (the judging thread's) sees the run's version through updates, late answers and a restart", async () => {
    const bus = new EventBus();
    const run = new WeightVersionTracker(3);
    const mirror = sharedWeightVersion(structuredClone(run.shared)); // (a SharedArrayBuffer crosses as the same memory)
    expect(mirror.current()).toBe(3);
    run.reset();
    const answers = ["default", "5", "3", "9", "9", "12"];
    const watcher = new WeightUpdateWatcher({ bus, tracker: run, readVersion: async () => answers.shift() ?? null });
    const seen: Array<[number, number]> = [];
    for (let poll = 0; poll < 6; poll++) {
      await watcher.poll();
      seen.push([run.current(), mirror.current()]);
    }
    expect(seen).toEqual([[0, 0], [5, 5], [5, 5], [9, 9], [9, 9], [12, 12]]);
    resetVersionsForTrainerRestart(run, bus, "test: slime restarted");
    expect([run.current(), mirror.current()]).toEqual([0, 0]);
    run.observe("2"); // (the proxy's observations too)
    expect([run.current(), mirror.current()]).toEqual([2, 2]);
    watcher.stop();

    const [mainSide, judgeSide] = [new StalenessPolicy(run, 0), new StalenessPolicy(mirror, 0)];
    const verdicts = (policy: StalenessPolicy) => [["default"], ["1"], ["2"], ["1", "2"]].map((versions) => policy.staleReason(versions));
    expect(verdicts(judgeSide)).toEqual(verdicts(mainSide));
    expect(verdicts(mainSide).filter((reason) => reason !== null)).toHaveLength(3);
  });

  it("the store drops and the batch frame counts staleness by the same policy, against the owner's current version", async () => {
    const tracker = new WeightVersionTracker();
    const staleness = new StalenessPolicy(tracker, 2);
    store = await SampleStore.open(join(await mkdtemp(join(tmpdir(), "openclaw-staleness-")), "store"), { staleness });
    expect(store.staleness).toBe(staleness);
    await store.put(makeSample(0, { weightVersion: "1" }));
    await store.put(makeSample(1, { weightVersion: "2" }));
    await store.put(makeSample(2, { weightVersion: "3" }));
    await store.put(makeSample(3, { weightVersion: "4" }));
    tracker.observe("4");
    const batch = (await store.deliver(3, 0))!; // the version-1 sample is 3 behind: dropped, not delivered
    expect(store.counts().droppedStale).toBe(1);
    const { header } = assembleBatchFrame(batch, store.staleness);
    expect(header.currentVersion).toBe(4);
    expect(header.metrics).toMatchObject({ "openclaw/weight_version": 4, "openclaw/staleness_max": 2, "openclaw/staleness_mean": 1 });
    tracker.observe("6");
    expect(assembleBatchFrame(batch, store.staleness).header.metrics).toMatchObject({ "openclaw/weight_version": 6, "openclaw/staleness_max": 4 });
  });
});
