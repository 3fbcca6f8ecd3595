// The rollout budget: a new task group starts only when the samples ahead of it (ready in the store, steps of
// finished episodes not yet judged, expected of running episodes) and its own fit in max_staleness × batch_size;
// always when nothing runs or waits to be judged and the store cannot make a batch; lost steps stop blocking that.
import { describe, expect, it } from "vitest";
import { RolloutBudget } from "../../orchestrator/episodes/rollout-budget.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";

const staleness = (maxStaleness: number) => new StalenessPolicy(new WeightVersionTracker(), maxStaleness);

describe("RolloutBudget", () => {
  it("admits a group while its samples fit in the staleness window behind those ahead", () => {
    let ready = 0;
    const budget = new RolloutBudget({ staleness: staleness(5), batchSize: 4, ready: () => ready });
    expect(budget.window).toBe(20);
    expect(budget.mayStartGroup({ running: 0, runningSamples: 0, groupSamples: 0 })).toBe(true);
    // one group of 8 episodes × 2 steps running: another does not fit (16 + 16 > 20)
    expect(budget.mayStartGroup({ running: 8, runningSamples: 16, groupSamples: 16 })).toBe(false);
    // it finished: its 16 steps wait to be judged, then they are in the store; the trainer takes them 4 at a time
    for (let episode = 0; episode < 8; episode++) budget.episodeEnded(`e${episode}`, 2);
    expect(budget.waiting()).toBe(16);
    expect(budget.mayStartGroup({ running: 0, runningSamples: 0, groupSamples: 16 })).toBe(false);
    for (let episode = 0; episode < 8; episode++) for (const _ of [1, 2]) budget.stepJudged(`e${episode}`);
    ready = 16;
    expect(budget.waiting()).toBe(16);
    expect(budget.mayStartGroup({ running: 0, runningSamples: 0, groupSamples: 16 })).toBe(false);
    ready = 4;
    expect(budget.mayStartGroup({ running: 0, runningSamples: 0, groupSamples: 16 })).toBe(true);
    budget.stepJudged("unknown"); // (a chat turn's judgement changes nothing)
    expect(budget.waiting()).toBe(4);
  });

  it("a group larger than the window runs alone: admitted when nothing runs, waits to be judged or can make a batch", () => {
    let now = 0;
    let ready = 0;
    const budget = new RolloutBudget({ staleness: staleness(2), batchSize: 4, ready: () => ready, lostAfterMs: 1000, now: () => now });
    expect(budget.mayStartGroup({ running: 0, runningSamples: 0, groupSamples: 24 })).toBe(true);
    expect(budget.mayStartGroup({ running: 1, runningSamples: 3, groupSamples: 24 })).toBe(false);
    budget.episodeEnded("e1", 3);
    budget.stepJudged("e1");
    expect(budget.mayStartGroup({ running: 0, runningSamples: 0, groupSamples: 24 })).toBe(false); // two steps still to judge
    now = 1500; // …never judged (lost): they stop blocking
    expect(budget.mayStartGroup({ running: 0, runningSamples: 0, groupSamples: 24 })).toBe(true);
    ready = 4; // the store can make a batch: the trainer is not idle
    expect(budget.mayStartGroup({ running: 0, runningSamples: 0, groupSamples: 24 })).toBe(false);
  });
});
