// A judge slower than the user: turns wait for a judging slot (twice judge.concurrency), a turn already stale when
// its slot comes is skipped without a judge call (its sample would never be delivered), and beyond
// judge.max_waiting_turns the oldest waiting turn is skipped, so the backlog stays bounded and holds the newest turns.
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../contracts/events.ts";
import { HANG, makeTurn, startHarness, type Harness } from "./judge-harness.ts";

let harness: Harness | null = null;
const settled = () => new Promise((resolve) => setTimeout(resolve, 20));
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe("judging backlog", () => {
  it("skips a turn that is already stale, without calling the judge, and judges one that is not", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 1 }, training: { max_staleness: 2 } });
    harness.versions.observe("10");
    const stale = await makeTurn({ marker: "CASE-stale" }); // tokens from versions 7 and 8
    const skipped = await harness.judgeTurn(stale);
    expect(skipped).toMatchObject({ sample: null, skipCategory: "stale", skipped: "stale before judging: oldest token from weight version 7, current 10, max_staleness 2 (its sample would not be delivered)" });
    expect(harness.judge.calls).toHaveLength(0);
    await settled(); // (the turn-judged event comes just before its task ends)
    expect(await harness.stats()).toMatchObject({ skipped: { stale: 1 }, pending: 0 });
    expect((await harness.records())[0]).toMatchObject({ sessionId: stale.sessionId, sample: null, skipped: expect.stringContaining("stale before judging") });

    const made = await makeTurn({ marker: "CASE-fresh" });
    const fresh = { ...made, weightVersions: made.weightVersions.map((span, index) => ({ ...span, version: String(8 + index) })) }; // 8 and 9
    harness.judge.script("CASE-fresh", "eval", ["\\boxed{1}"]);
    expect(await harness.judgeTurn(fresh)).toMatchObject({ skipped: null, sample: { kind: "rl", reward: 1 } });
  });

  it("follows a reset of the weight version (slime restarted): turns of the new versions are judged, not skipped as stale", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 1 }, training: { max_staleness: 2 } });
    harness.versions.observe("40");
    harness.versions.reset();
    harness.versions.observe("9");
    const made = await makeTurn({ marker: "CASE-restarted" }); // tokens from versions 7 and 8: fine against 9
    harness.judge.script("CASE-restarted", "eval", ["\\boxed{1}"]);
    expect(await harness.judgeTurn(made)).toMatchObject({ skipped: null, sample: { kind: "rl", reward: 1 } });
  });

  it("keeps at most judge.max_waiting_turns turns waiting: the oldest are skipped, the newest judged", async () => {
    // (a judge call times out after 0.4 s: the two hanging turns end as judge failures, then the waiting ones go)
    harness = await startHarness({ method: "binary", judge: { votes: 1, concurrency: 1, max_waiting_turns: 2, timeout_s: 0.4, retries: 0 } }, { turnRetries: 0 });
    const turns = await Promise.all(Array.from({ length: 7 }, (_, index) => makeTurn({ marker: `CASE-b${index}` })));
    // the first two take both judging slots (2 × concurrency) and hang; the next five wait
    for (const [index, turn] of turns.entries()) harness.judge.script(`CASE-b${index}`, "eval", index < 2 ? [HANG] : ["\\boxed{-1}"]);
    const outcomes = new Map<string, Extract<RunEvent, { type: "turn-judged" }>>();
    harness.bus.subscribe((event) => void (event.type === "turn-judged" && outcomes.set(event.sessionId, event)));
    for (const turn of turns) harness.pipeline.onTurnClosed(turn);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // turns 2–4 were pushed out of the backlog at once; 5 and 6 wait behind the two hanging ones
    expect([...outcomes.keys()].sort()).toEqual(["session-CASE-b2", "session-CASE-b3", "session-CASE-b4"]);
    for (const index of [2, 3, 4]) {
      expect(outcomes.get(`session-CASE-b${index}`)).toMatchObject({ sample: null, skipped: "backlog full: more than 2 turns waiting for the judge (judge.max_waiting_turns); the oldest is not judged" });
    }
    expect(await harness.stats()).toMatchObject({ pending: 4, skipped: { "backlog-full": 3 } });
    await Promise.all([5, 6].map((index) => harness!.nextJudged(`session-CASE-b${index}`, 0)));
    for (const index of [0, 1]) expect(outcomes.get(`session-CASE-b${index}`)).toMatchObject({ sample: null, skipped: expect.stringContaining("failed") });
    for (const index of [5, 6]) expect(outcomes.get(`session-CASE-b${index}`)).toMatchObject({ sample: { reward: -1 } });
    expect(harness.judge.calls.map((call) => call.marker).sort()).toEqual(["CASE-b0", "CASE-b1", "CASE-b5", "CASE-b6"]);
    await settled();
    expect((await harness.stats()).pending).toBe(0);
  });

  it("decides at once the turns that need no judge call, even with the slots taken and the backlog full", async () => {
    harness = await startHarness({ method: "binary", judge: { votes: 1, concurrency: 1, max_waiting_turns: 1, timeout_s: 0.4, retries: 0 } }, { turnRetries: 0 });
    const busy = await Promise.all([0, 1, 2].map((index) => makeTurn({ marker: `CASE-busy${index}` })));
    for (const [index] of busy.entries()) harness.judge.script(`CASE-busy${index}`, "eval", [HANG]);
    const last = await Promise.all([0, 1, 2, 3].map((index) => makeTurn({ marker: `CASE-last${index}`, next: null }))); // closed at shutdown or idle
    const outcomes = new Map<string, Extract<RunEvent, { type: "turn-judged" }>>();
    harness.bus.subscribe((event) => void (event.type === "turn-judged" && outcomes.set(event.sessionId, event)));
    for (const turn of [...busy, ...last]) harness.pipeline.onTurnClosed(turn);
    // decided at once: announced long before the busy turns' judge calls time out (0.4 s), however loaded the machine
    for (let waited = 0; waited < 2000 && last.some((turn) => !outcomes.has(turn.sessionId)); waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
    // (binary keeps such a turn as a masked sample, with no judge call)
    for (const index of [0, 1, 2, 3]) expect(outcomes.get(`session-CASE-last${index}`)).toMatchObject({ skipped: null, sample: { reward: 0, why: "binary: no next state (loss mask 0)" } });
    expect(outcomes.has("session-CASE-busy2")).toBe(false); // still waiting: not pushed out by the turns decided at once
    expect(await harness.stats()).toMatchObject({ pending: 3, masked: 4, skipped: {} });
  });
});
