// The method comparison's runner on loopback: a real `openclaw-rl start --method binary` in rehearsal, the student
// persona talking to it until its sessions-until count is settled, and the table row that run makes.
import { describe, expect, it } from "vitest";
import { sessionsUntilPreference, sessionsUntilSettled } from "../../orchestrator/evaluation/sessions-until.ts";
import { QUICK_SETTINGS, sessionsUntilRun, sessionsUntilTable } from "../support/sessions-until-run.ts";

describe("sessions-until runs", () => {
  it("plays sessions against a real rehearsal start until the count is settled, and makes a table row", async () => {
    const cap = 12; // a short run: the count is settled by session 12 whatever the stand-in learns
    const outcome = await sessionsUntilRun("binary", "student", 0, { ...QUICK_SETTINGS, cap });
    if (!("result" in outcome)) throw new Error(`the start was refused: ${outcome.refused}`);
    const verdicts = outcome.sessions.map((session) => session.firstReplySatisfied);
    expect(outcome.sessions.length).toBeLessThanOrEqual(cap);
    expect(sessionsUntilSettled(verdicts, { cap })).toBe(true);
    expect(sessionsUntilSettled(verdicts.slice(0, -1), { cap }), "it stopped as soon as the count was settled").toBe(false);
    expect(outcome.result).toEqual(sessionsUntilPreference(verdicts, { cap }));
    for (const session of outcome.sessions) {
      expect(["plain", "bulleted", "ai"]).toContain(session.firstReplyStyle); // every first reply was the stand-in policy's
      expect(session.firstReplySatisfied).toBe(session.firstReplyStyle === "plain");
      expect(session.weightVersion).toMatch(/^\d+$/); // served by trained weights: the runner waited for the first sync
    }
    const table = sessionsUntilTable([outcome], cap);
    const shown = outcome.result.reached ? `${outcome.result.sessions}` : `${cap} (1 of 1 capped)`;
    expect(table.split("\n")[2]).toBe(`| binary | student | ${shown} | 0: ${outcome.result.reached ? outcome.result.sessions : `${cap}+`} | ${outcome.result.sessions}–${outcome.result.sessions} |`);
  }, 300_000);

  it("groups seeds per method and persona, and shows a refused method's reason", () => {
    const table = sessionsUntilTable(
      [
        { method: "binary", persona: "ta", seed: 0, result: { sessions: 5, reached: true }, sessions: [], seconds: 1 },
        { method: "binary", persona: "ta", seed: 1, result: { sessions: 9, reached: true }, sessions: [], seconds: 1 },
        { method: "opd", persona: "ta", seed: 0, result: { sessions: 72, reached: false }, sessions: [], seconds: 1 },
        { method: "hybrid", persona: "ta", seed: 0, refused: "error: hybrid.teacher: needs | the trainer's teacher" },
      ],
      72,
    );
    expect(table.split("\n").slice(2)).toEqual([
      "| binary | ta | 7.0 ± 2.8 | 0: 5, 1: 9 | 5–9 |",
      "| opd | ta | 72 (1 of 1 capped) | 0: 72+ | 72–72 |",
      "| hybrid | ta | refused | – | error: hybrid.teacher: needs / the trainer's teacher |",
    ]);
  });
});
