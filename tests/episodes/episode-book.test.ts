// The episode book on its own (a clock of the test's): a group settles when samples_per_task episodes finished, or
// at group_timeout_s after its first finished; an episode that never reports an outcome is handed on untrainable at
// the same bound, so nothing is held for ever; an outcome that arrives before the last step was closed waits for it.
import { describe, expect, it } from "vitest";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { EpisodeBook, type SettledGroup } from "../../orchestrator/episodes/episode-book.ts";

function step(episodeId: string, groupId: string, turn: number) {
  return { turn: { sessionId: episodeId, turn, episode: { id: episodeId, groupId } } as ClosedTurn & { episode: { id: string; groupId: string } }, stepScore: 1, unusable: null, carried: `${episodeId}#${turn}` };
}

function book(samplesPerTask: number) {
  let now = 1000;
  const groups: SettledGroup<string>[] = [];
  const entries = new EpisodeBook<string>({ samplesPerTask, prmStepCoef: 1, groupTimeoutMs: 60_000, onGroup: (group) => groups.push(group), now: () => now });
  return { entries, groups, advance: (ms: number) => (now += ms) };
}

describe("EpisodeBook", () => {
  it("waits for the last step when the outcome comes first, then for the group", () => {
    const { entries, groups } = book(2);
    const a0 = step("a", "g", 0);
    entries.stepClosed(a0.turn);
    entries.stepJudged(a0);
    entries.ended({ episodeId: "a", groupId: "g", score: 1, failure: null, steps: 2 });
    expect(entries.held).toEqual({ episodes: 1, groups: 0 });
    const a1 = step("a", "g", 1);
    entries.stepClosed(a1.turn);
    entries.stepJudged(a1);
    expect(entries.held).toEqual({ episodes: 0, groups: 1 });
    const b0 = step("b", "g", 0);
    entries.stepClosed(b0.turn);
    entries.stepJudged(b0);
    entries.ended({ episodeId: "b", groupId: "g", score: 0, failure: null, steps: 1 });
    expect(groups).toHaveLength(1);
    expect(groups[0]!.partial).toBeNull();
    expect(groups[0]!.steps.map((settled) => [settled.carried, settled.stepIndex, settled.trainable && settled.reward])).toEqual([
      ["a#0", 0, 2],
      ["a#1", 1, 2],
      ["b#0", 0, 0],
    ]);
    expect(entries.held).toEqual({ episodes: 0, groups: 0 });
  });

  it("a group short of samples_per_task settles at the timeout; an episode without an outcome is dropped at the same bound", () => {
    const { entries, groups, advance } = book(8);
    const a0 = step("a", "g", 0);
    entries.stepClosed(a0.turn);
    entries.stepJudged(a0);
    entries.ended({ episodeId: "a", groupId: "g", score: 1, failure: null, steps: 1 });
    const silent = step("s", "g", 0);
    entries.stepClosed(silent.turn);
    entries.stepJudged(silent);
    advance(30_000);
    expect(entries.sweep()).toBe(0);
    expect(groups).toHaveLength(0);
    advance(31_000);
    expect(entries.sweep()).toBe(1);
    const reasons = groups.map((group) => group.partial);
    expect(reasons).toContain("the group waited longer than episodes.group_timeout_s for 8 episodes");
    expect(reasons).toContain("the episode reported no outcome within episodes.group_timeout_s");
    const dropped = groups.find((group) => group.steps[0]!.carried === "s#0")!;
    expect(dropped.steps[0]).toMatchObject({ trainable: false });
    expect(entries.held).toEqual({ episodes: 0, groups: 0 });
  });
});
