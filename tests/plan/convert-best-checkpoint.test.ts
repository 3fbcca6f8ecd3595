// convert-checkpoint --best: the best evaluated version of a run folder (evaluations.jsonl) and the checkpoint that
// holds its weights (version v ↔ iter_{v−2} within one slime process), or typed errors that say why there is none and
// which evaluated versions have one; and the CLI's plan naming it.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { VersionMetrics } from "../../contracts/evaluation.ts";
import { iterationOfVersion, versionOfIteration } from "../../lib/checkpoints/checkpoint-versions.ts";
import { bestCheckpoint } from "../../orchestrator/evaluation/best-checkpoint.ts";
import { EVALUATIONS_FILE } from "../../orchestrator/evaluation/continuous-evaluation.ts";
import { summarise } from "../../orchestrator/evaluation/version-evaluation.ts";
import { runCliInProcess } from "../cli/cli-process.ts";

function metrics(version: string, scores: number[]): VersionMetrics {
  const sessions = scores.map((score, index) => ({ openerId: `o${index}`, sample: 0, transcript: [], votes: [], score, failure: null }));
  return summarise(version, sessions, { policy: 0, simulator: 0, scorer: 0 }, null);
}

/** A run folder with checkpoints iter_0000004 and iter_0000009 (the tracker names 9) and these evaluations. */
function runFolder(evaluations: VersionMetrics[]): { runDir: string; saveDir: string } {
  const runDir = mkdtempSync(path.join(tmpdir(), "convert-best-"));
  const saveDir = path.join(runDir, "checkpoints");
  for (const iteration of [4, 9]) {
    mkdirSync(path.join(saveDir, `iter_000000${iteration}`), { recursive: true });
    writeFileSync(path.join(saveDir, `iter_000000${iteration}`, "common.pt"), "weights");
  }
  writeFileSync(path.join(saveDir, "latest_checkpointed_iteration.txt"), "9");
  if (evaluations.length > 0) writeFileSync(path.join(runDir, EVALUATIONS_FILE), evaluations.map((line) => JSON.stringify(line)).join("\n") + "\n");
  return { runDir, saveDir };
}

describe("the best evaluated version's checkpoint", () => {
  it("version v is served from iteration v − 2 (slime pushes the loaded weights once as version 1, then one update per rollout)", () => {
    expect([0, 1, 2, 6, 11].map(iterationOfVersion)).toEqual([null, null, 0, 4, 9]);
    expect(versionOfIteration(4)).toBe(6);
  });

  it("the highest mean score wins; its iteration is the one converted", () => {
    const { runDir, saveDir } = runFolder([metrics("0", [0.5, 0.5]), metrics("6", [1, 0.8]), metrics("11", [0.7, 0.7])]);
    const found = bestCheckpoint(runDir, saveDir);
    expect(found.iteration).toBe(4);
    expect(found.best.version).toBe("6");
  });

  it("no evaluation (or none scored): EVALUATION_MISSING, saying how to evaluate", () => {
    const { runDir, saveDir } = runFolder([]);
    expect(() => bestCheckpoint(runDir, saveDir)).toThrow(expect.objectContaining({ code: "EVALUATION_MISSING", path: "--best", hint: expect.stringContaining("evaluation.every_versions") }));
  });

  it("a best version without a saved checkpoint: CHECKPOINT_MISSING naming the evaluated versions that have one, best first", () => {
    const { runDir, saveDir } = runFolder([metrics("0", [0.5, 0.5]), metrics("3", [1, 1]), metrics("6", [0.6, 0.6]), metrics("11", [0.7, 0.7])]);
    expect(() => bestCheckpoint(runDir, saveDir)).toThrow(
      expect.objectContaining({
        code: "CHECKPOINT_MISSING",
        message: `the best evaluated version v3 (score 100.0%) has no saved checkpoint (iter_0000001 in ${saveDir}); evaluated versions with a checkpoint: v11 (--iteration 9, score 70.0%), v6 (--iteration 4, score 60.0%)`,
      }),
    );
  });

  it("the base as the best: nothing trained to convert; no evaluated version with a checkpoint: the saved ones with their versions", () => {
    const { runDir, saveDir } = runFolder([metrics("0", [0.9, 0.9]), metrics("3", [0.5, 0.5])]);
    expect(() => bestCheckpoint(runDir, saveDir)).toThrow(
      expect.objectContaining({
        code: "CHECKPOINT_MISSING",
        message:
          "the best evaluated version is v0 (score 90.0%), the untrained weights: model.path (or training.load_dir) already holds them; " +
          "no evaluated version (v0, v3) has one; saved: iter_0000004 (v6), iter_0000009 (v11)",
      }),
    );
  });

  it("versions that went down (slime restarted and counts from 0 again) are refused: a version names no one checkpoint", () => {
    const { runDir, saveDir } = runFolder([metrics("0", [0.5, 0.5]), metrics("6", [0.9, 0.9]), metrics("0", [0.5, 0.5])]);
    expect(() => bestCheckpoint(runDir, saveDir)).toThrow(expect.objectContaining({ code: "EVALUATION_REFUSED", message: expect.stringContaining("(v6 then v0)") }));
  });
});

describe("openclaw-rl convert-checkpoint --best", () => {
  const command = (runDir: string, ...more: string[]) => ["convert-checkpoint", "--recipe", "configs/qwen3-4b-binary.yaml", "--set", "engine.slime.root=/nonexistent/slime", "--run", runDir, "--out", path.join(runDir, "hf"), ...more];

  it("--plan names the best version and converts its iteration; --best with --iteration, or without evaluations, exits 2", async () => {
    const { runDir } = runFolder([metrics("0", [0.5, 0.5]), metrics("6", [1, 0.8]), metrics("11", [0.7, 0.7])]);
    const plan = await runCliInProcess(command(runDir, "--best", "--plan", "--json"));
    expect(plan.exitCode, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as { iteration: number; argv: string[]; best: { version: string; mean_score: number } };
    expect(json).toMatchObject({ iteration: 4, best: { version: "6", mean_score: 0.9 } });
    expect(json.argv).toContain(path.join(runDir, "checkpoints", "iter_0000004"));
    const text = await runCliInProcess(command(runDir, "--best", "--plan"));
    expect(text.stdout).toContain("best        best evaluated version v6: held-out score 90.0% [");
    expect(text.stdout).toContain("→ iteration 4");
    const both = await runCliInProcess(command(runDir, "--best", "--iteration", "9", "--plan"));
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain("--best and --iteration both name a checkpoint");
    const empty = runFolder([]);
    const missing = await runCliInProcess(command(empty.runDir, "--best", "--plan"));
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`--best: no held-out evaluation with a scored session in ${empty.runDir}/evaluations.jsonl`);
  });
});
