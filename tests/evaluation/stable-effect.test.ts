// "Sessions until a stable effect" on fixed records: the first version from which every later evaluation is
// significantly above the base (paired, at least two evaluations), and the sessions with a main turn before it.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { VersionMetrics } from "../../contracts/evaluation.ts";
import { evaluationMarkdown } from "../../orchestrator/evaluation/evaluation-report.ts";
import { sessionsBefore, significantGain, stableEffect, stableEffectLine } from "../../orchestrator/evaluation/stable-effect.ts";
import { summarise } from "../../orchestrator/evaluation/version-evaluation.ts";

function version(label: string, scores: number[]): VersionMetrics {
  const sessions = scores.map((score, index) => ({ openerId: `o${index}`, sample: 0, transcript: [], votes: [], score, failure: null }));
  return summarise(label, sessions, { policy: 0, simulator: 0, scorer: 0 }, null);
}
const base = version("0", [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);
const same = (label: string) => version(label, [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);
const better = (label: string) => version(label, [1, 1, 1, 1, 1, 1, 1, 0.5]);

describe("a stable effect", () => {
  it("is the first version from which every later evaluation is significantly above the base, two at least", () => {
    expect(significantGain(better("6"), base)).toBe(true);
    expect(significantGain(same("3"), base)).toBe(false);
    expect(stableEffect([base, same("3"), better("6"), better("9")])).toEqual({ version: "6", baseVersion: "0", evaluations: 2 });
    // a gain that did not last does not count: the run starts again after it
    expect(stableEffect([base, better("3"), same("6"), better("9"), better("12"), better("15")])).toEqual({ version: "9", baseVersion: "0", evaluations: 3 });
    // one significant evaluation is not yet "for good"; the last one falling back ends it
    expect(stableEffect([base, same("3"), better("6")])).toBeNull();
    expect(stableEffect([base, better("3"), better("6"), same("9")])).toBeNull();
    expect(stableEffect([])).toBeNull();
  });

  it("counts the sessions with a main turn served before that version, from turns.jsonl", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "stable-effect-"));
    const turn = (session: string, served: string) => JSON.stringify({ version: 1, session_id: session, turn: 0, weight_versions: [{ version: served, start: 0, end: 3 }] });
    writeFileSync(path.join(runDir, "turns.jsonl"), [turn("a", "default"), turn("b", "2"), turn("a", "3"), turn("c", "6"), turn("d", "7"), '{"session_id": "torn'].join("\n"));
    expect(await sessionsBefore(runDir, 6)).toBe(2);
    expect(await sessionsBefore(runDir, 0)).toBe(0);
    expect(await sessionsBefore(mkdtempSync(path.join(tmpdir(), "stable-effect-empty-")), 6)).toBe(0);
    const line = await stableEffectLine(runDir, [base, same("3"), better("6"), better("9")]);
    expect(line).toBe("sessions until a stable effect: 2 (the held-out score is significantly above the base v0 from version 6 on, in all 2 evaluations since; 2 sessions had a main turn before version 6)");
    expect(await stableEffectLine(runDir, [base, better("6")])).toMatch(/^sessions until a stable effect: not yet/);
    expect(evaluationMarkdown([base], null, [line])).toContain(`\n${line}\n`);
  });
});
