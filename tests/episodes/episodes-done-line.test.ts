// The line `start` prints at the episodes-done event: counts, the outcome rate, that the run stays up, where to look.
import { describe, expect, it } from "vitest";
import { episodesDoneLine } from "../../orchestrator/episodes/episodes-done-line.ts";

describe("episodesDoneLine", () => {
  it("says what was done and where to look", () => {
    const line = episodesDoneLine({ type: "episodes-done", at: 0, planned: 96, scored: 95, failed: 1, outcomeRate: 0.8421 }, "/runs/a");
    expect(line).toContain("all 96 planned episodes done (95 scored, 1 failed), outcome 84 %");
    expect(line).toContain("`npx openclaw-rl status --run /runs/a`");
    expect(line).toContain("/runs/a/judgements.jsonl");
    expect(episodesDoneLine({ type: "episodes-done", at: 0, planned: 2, scored: 0, failed: 2, outcomeRate: null }, "/r")).toContain("no outcome");
  });
});
