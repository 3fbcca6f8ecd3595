// The held-out evaluation, end to end in rehearsal: `start` evaluates its base and every N versions, a scripted user
// (or start's own episodes) trains the stand-in, and `openclaw-rl eval` on the live version shows the held-out score (or
// the held-out tasks' outcome rate) above the base's interval; with learning off the score stays within it.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { VersionMetrics } from "../../contracts/evaluation.ts";
import { readEvaluations } from "../../orchestrator/evaluation/evaluation-history.ts";
import { significantGain } from "../../orchestrator/evaluation/stable-effect.ts";
import { ScriptedUser } from "../../rehearsal/user/scripted-user.ts";
import { freePort, until } from "../support/loopback.ts";
import { rehearsalSets } from "./support/rehearsal-sets.ts";

const root = path.resolve(import.meta.dirname, "..", "..");

async function rehearse(learn: "on" | "off", episodes = false): Promise<{ fromStart: VersionMetrics[]; fromCli: VersionMetrics; table: string; report: string }> {
  const folder = await mkdtemp(path.join(tmpdir(), `evaluation-${learn}-`));
  const runDir = path.join(folder, "run");
  const { sets: ports, proxyPort, policyPort } = await rehearsalSets(runDir);
  const environmentPort = await freePort();
  const sets = {
    ...ports,
    "engine.rehearsal.train_seconds": 0.2,
    "engine.rehearsal.seed": 5,
    "engine.rehearsal.learn": learn,
    "training.batch_size": 4,
    "evaluation.every_versions": 3,
    "evaluation.samples": 2,
    ...(episodes
      ? {
          "training.batch_size": 8,
          "training.max_staleness": 50,
          "episodes.environment": "toolcall",
          "episodes.environment_port": environmentPort,
          "episodes.samples_per_task": 4,
          "episodes.concurrency": 4,
          "episodes.epochs": 2,
          "evaluation.every_versions": 8,
          "evaluation.samples": 1,
          "evaluation.tasks": path.join(root, "rehearsal", "policy", "agent-tasks-held-out.jsonl"),
          "evaluation.episode_samples": 4,
        }
      : {}),
  };
  const argv = ["bin/openclaw-rl.mjs", "start", "--method", "binary", ...Object.entries(sets).flatMap(([key, value]) => ["--set", `${key}=${value}`])];
  const start = execa(process.execPath, argv, { cwd: root, reject: false, env: { OPENCLAW_RL_API_KEY: "" }, all: true });
  try {
    await until("the base's evaluation", async () => (readEvaluations(runDir).length > 0 ? true : null), 180_000);
    if (!episodes) await new ScriptedUser({ proxyUrl: `http://127.0.0.1:${proxyPort}`, policyUrl: `http://127.0.0.1:${policyPort}`, model: "qwen3-4b", toolSessionEvery: 0 }).run(48);
    // (with episodes, start's own episodes train on the toolcall environment's default tasks: 12 tasks × 4 × 2 epochs)
    await until("an evaluation of a later version by start", async () => (readEvaluations(runDir).some((metrics) => Number(metrics.version) >= 3) ? true : null), 240_000);
    const cli = await execa(process.execPath, ["bin/openclaw-rl.mjs", "eval", "--run", runDir], { cwd: root, reject: false, env: { OPENCLAW_RL_API_KEY: "" }, all: true });
    expect(cli.exitCode, cli.all).toBe(0);
    const evaluations = readEvaluations(runDir);
    return { fromStart: evaluations.slice(0, -1), fromCli: evaluations.at(-1)!, table: cli.stdout, report: await readFile(path.join(runDir, "evaluation-report.md"), "utf8") };
  } finally {
    start.kill("SIGTERM");
    const result = await start;
    if (result.exitCode !== 0) console.log(result.all?.slice(-4000));
    await rm(folder, { recursive: true, force: true });
  }
}

describe("held-out evaluation in rehearsal", () => {
  it("training: the live version's held-out score rises above the base's 95% interval, paired win rate above even", async () => {
    const { fromStart, fromCli, table, report } = await rehearse("on");
    console.log(table);
    const base = fromStart[0]!;
    // the base: 0, or 1 when the stand-in trainer's first weight sync (the same, untrained weights) came first
    expect(Number(base.version)).toBeLessThanOrEqual(1);
    expect(base.baseVersion).toBeNull();
    expect(Number(fromCli.version)).toBeGreaterThanOrEqual(3);
    expect(fromCli.baseVersion).toBe(base.version);
    expect(fromCli.scoreCi!.low).toBeGreaterThan(base.scoreCi!.high);
    expect(fromCli.winRateCi!.low).toBeGreaterThan(0.5);
    expect(report).toMatch(/\| [01](→\d+)? \(base\) \|/);
    // the stable effect under the table: found once the last two evaluations are significant gains over the base
    const stable = [fromStart.at(-1)!, fromCli].every((metrics) => significantGain(metrics, base));
    expect(table).toMatch(stable ? new RegExp(`sessions until a stable effect: \\d+ \\(the held-out score is significantly above the base v${base.version} from version \\d+ on`) : /sessions until a stable effect: not yet/);
  });

  it("episodes: the held-out tasks' outcome rate rises above the base's Wilson interval", async () => {
    const { fromStart, fromCli, table } = await rehearse("on", true);
    console.log(table);
    const base = fromStart[0]!;
    expect(Number(base.version)).toBeLessThanOrEqual(1); // (as above)
    expect(base.episodes).toMatchObject({ tasks: 6, episodes: 24, k: 4 });
    expect(Number(fromCli.version)).toBeGreaterThanOrEqual(8);
    expect(fromCli.episodes!.outcomeCi!.low).toBeGreaterThan(base.episodes!.outcomeCi!.high);
  });

  it("control, learning off: versions advance but the held-out score stays within the base's interval", async () => {
    const { fromStart, fromCli, table } = await rehearse("off");
    console.log(table);
    const base = fromStart[0]!;
    expect(Number(fromCli.version)).toBeGreaterThanOrEqual(3);
    // the two 95% intervals overlap: no change shown (the stand-in's P(ai) stays 1/3)
    expect(fromCli.scoreCi!.low).toBeLessThanOrEqual(base.scoreCi!.high);
    expect(base.scoreCi!.low).toBeLessThanOrEqual(fromCli.scoreCi!.high);
  });
});
