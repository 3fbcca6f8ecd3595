// `openclaw-rl demo --persona`: a homework persona against a real rehearsal start, session by session, ending with
// the sessions-until count; a persona it does not know is refused by name before anything is reached.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { QUICK_SETTINGS, withRehearsalStart } from "../support/sessions-until-run.ts";
import { runCliInProcess } from "./cli-process.ts";

describe("demo --persona", () => {
  it("refuses an unknown persona by name", async () => {
    const result = await runCliInProcess(["demo", "--persona", "parent"]);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('unknown persona "parent"');
    expect(result.stderr).toContain("student, ta, teacher");
  });

  it("plays the TA against the running start until its count is settled", async () => {
    const outcome = await withRehearsalStart("binary", 0, QUICK_SETTINGS, ({ runDir }) => runCliInProcess(["demo", "--persona", "ta", "--recipe", path.join(runDir, "recipe.resolved.yaml")], { OPENCLAW_RL_API_KEY: "" }));
    if ("refused" in outcome) throw new Error(`the start was refused: ${outcome.refused}`);
    const { exitCode, stdout, stderr } = outcome.value;
    expect(exitCode, stderr).toBe(0);
    expect(stdout).toMatch(/^demo: the ta persona \(wants grading comments that are detailed and specific; the stand-in shows it as the bulleted style\), method binary/);
    const sessions = [...stdout.matchAll(/^session +(\d+) +weights v(\d+) +first reply (plain|bulleted|ai) +(satisfied|not satisfied)$/gm)];
    expect(sessions.length).toBeGreaterThanOrEqual(3);
    expect(sessions.map((match) => Number(match[1]))).toEqual(sessions.map((_, index) => index + 1));
    for (const match of sessions) expect(match[4]).toBe(match[3] === "bulleted" ? "satisfied" : "not satisfied");
    const verdicts = sessions.map((match) => match[4] === "satisfied");
    const settled = verdicts.length >= 72 ? 72 : verdicts.length - 2; // it stops at the first streak of 3, or the cap
    expect(verdicts.slice(-3).every(Boolean) || verdicts.length === 72).toBe(true);
    expect(stdout).toMatch(new RegExp(`sessions until the first reply satisfies the ta in 3 sessions in a row: ${settled} `));
  }, 300_000);
});
