// The paper's measure from a run's own judgements: each session's first reply, as the judge scored the user's answer.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { firstReplyLine, firstReplyVerdicts } from "../../orchestrator/evaluation/first-reply-verdicts.ts";

const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((folder) => rmSync(folder, { recursive: true, force: true })));

function runWith(records: object[], tail = ""): string {
  const folder = mkdtempSync(path.join(tmpdir(), "first-reply-"));
  folders.push(folder);
  writeFileSync(path.join(folder, "judgements.jsonl"), records.map((record) => JSON.stringify(record)).join("\n") + "\n" + tail);
  return folder;
}
const first = (sessionId: string, evalScore: number | null, extra: object = {}) => ({ version: 1, sessionId, turn: 0, nextStateRole: "user", evalScore, ...extra });

describe("firstReplyVerdicts", () => {
  it("takes each session's first turn that a user answered, once, in the order judged", async () => {
    const folder = runWith(
      [
        first("a", -1),
        { ...first("a", 1), turn: 1 }, // a later turn: not the first reply
        first("b", 0), // nothing either way: not satisfied
        first("c", 1),
        first("c", -1), // judged again: the first record counts
        first("d", 1, { nextStateRole: "tool" }), // a tool step, not a user's verdict
        first("e", 1, { episode: { id: "e" } }), // an episode's step
        first("f", null), // opd: no evaluation score
        first("g", 1),
      ],
      '{"sessionId": "torn', // a torn last line
    );
    expect(await firstReplyVerdicts(folder)).toEqual({ verdicts: [false, false, true, true], unscored: 1 });
  });

  it("says the count, not yet, or capped, under eval's table", async () => {
    const scores = [-1, 1, -1, 1, 1, 1, -1];
    expect(await firstReplyLine(runWith(scores.map((score, index) => first(`s${index}`, score))))).toBe(
      "sessions until the first reply satisfies 3 sessions in a row: 4 (the paper's measure, capped at 72, from the judge's score of each session's first reply, 7 sessions)",
    );
    expect(await firstReplyLine(runWith([first("a", 1), first("b", -1), first("c", null)]))).toBe(
      "sessions until the first reply satisfies 3 sessions in a row: not yet (2 sessions so far, the count is capped at 72; 1 sessions without a judge score left out)",
    );
    expect(await firstReplyLine(runWith(Array.from({ length: 80 }, (_, index) => first(`s${index}`, index % 2 === 0 ? 1 : -1))))).toMatch(/: 72 \(capped: not within the first 72 sessions\)$/);
    expect(await firstReplyLine(runWith([first("a", null)]))).toBe(
      "sessions until the first reply satisfies 3 sessions in a row: – (no session's first reply has a judge score yet: the method judges hints only, or the judge failed)",
    );
  });
});
