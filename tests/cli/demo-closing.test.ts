// The demo's closing line (cli/commands/demo-closing.ts) over real status snapshots: samples short of a batch, a
// batch's worth held back by the per-session share (who is over it and when they train), none left.
import { describe, expect, it } from "vitest";
import { closingLine } from "../../cli/commands/demo-closing.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { statusSnapshotSchema } from "../../contracts/status.ts";
import type { RunEventInput } from "../../contracts/events.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";

const recipe = recipeSchema.parse({ method: "binary", engine: { kind: "rehearsal" }, training: { batch_size: 4 } });
const sample = (turn: number, sessionId: string): RunEventInput => ({ type: "sample-ready", sampleId: `${sessionId}:${turn}`, sessionId, turn, kind: "rl", reward: 1, ready: turn + 1, batchSize: 4 });

function tracked() {
  const bus = new EventBus();
  const tracker = new StatusTracker(bus, recipe);
  return { bus, status: () => statusSnapshotSchema.parse(tracker.snapshot()) };
}

describe("demo closing line", () => {
  it("says what the next batch needs, and that training.max_wait_s would train a partial one", () => {
    const { bus, status } = tracked();
    expect(closingLine(status(), 0, "npx openclaw-rl status --run r")).toBe("every judged sample has gone to the trainer; `npx openclaw-rl status --run r` follows it");
    for (const turn of [0, 1]) bus.emit(sample(turn, "a"));
    expect(closingLine(status(), 0, "S")).toBe("2 of 4 samples ready: they train once 2 more turns are judged (training.max_wait_s, now 0: off, would train a partial batch after that many seconds); `S` follows it");
    expect(closingLine(status(), 60, "S")).toContain("they train once 2 more turns are judged, or as a partial batch once the oldest waited training.max_wait_s 60 s;");
  });

  it("says a batch held back by the share: whose samples, and in how many seconds they train", () => {
    const { bus, status } = tracked();
    for (const [turn, session] of ["talker", "talker", "other", "talker"].entries()) bus.emit(sample(turn, session));
    bus.emit({ type: "batch-held", ready: 4, size: 4, activeSessions: 2, perSession: 2, sessions: [{ unit: "talker", ready: 3 }], completesAt: Date.now() + 299_500 });
    expect(closingLine(status(), 0, "S")).toBe(
      "4 samples wait, held back by the per-session share (session talker has 3 ready; a batch takes at most 2 of one session's): they train in 300 s (training.fair_batch.relax_after_s 300 s; smaller trains them sooner), or once another conversation's turn is judged; `S` follows it",
    );
  });
});
