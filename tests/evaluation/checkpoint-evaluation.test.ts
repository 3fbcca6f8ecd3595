// `openclaw-rl eval --checkpoint` in rehearsal: two hand-written saved policies (policy-vN.json, one that mostly answers
// in the AI-flavoured style, one that never does) each served by a stand-in policy of their own and evaluated with the
// same plan, paired against the base; the scores differ the way the weights do, and each line says how it was served.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POLICY_FILE_FORMAT } from "../../rehearsal/policy/style-policy.ts";
import { JudgeResponder } from "../../rehearsal/judge/responder.ts";
import { StandinSglangServer } from "../../rehearsal/sglang/server.ts";
import { runCliInProcess } from "../cli/cli-process.ts";
import { qwen3 } from "../proxy/harness.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
let judge: StandinSglangServer;
let runDir: string;
let common: string[];

beforeAll(async () => {
  const { tokenizer, template } = await qwen3();
  judge = new StandinSglangServer({ tokenizer, chatTemplate: template, responder: await JudgeResponder.create(tokenizer), role: "judge", tokenDelayMs: 0 });
  await judge.start();
  runDir = mkdtempSync(path.join(tmpdir(), "openclaw-checkpoint-eval-"));
  const folder = path.join(runDir, "standin-policy");
  mkdirSync(folder);
  const policy = (logits: number[]) => JSON.stringify({ format: POLICY_FILE_FORMAT, styles: ["plain", "bulleted", "ai"], logits });
  writeFileSync(path.join(folder, "policy-v1.json"), policy([-4, -4, 4])); // P(ai) ≈ 0.9993
  writeFileSync(path.join(folder, "policy-v2.json"), policy([4, 0, -6])); // P(ai) ≈ 0.00004
  const personas = readFileSync(path.join(root, "configs", "evaluation", "personas.jsonl"), "utf8").split("\n").slice(0, 2).join("\n");
  writeFileSync(path.join(runDir, "personas.jsonl"), `${personas}\n`);
  common = ["--run", runDir, "--judge-url", judge.url, "--set", `records.dir=${runDir}`, "--set", `evaluation.personas=${path.join(runDir, "personas.jsonl")}`, "--set", "evaluation.samples=2"];
}, 60_000);

afterAll(async () => {
  await judge?.close();
});

const evaluations = () =>
  readFileSync(path.join(runDir, "evaluations.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { version: string; served: string; checkpoint?: string; meanScore: number; baseVersion: string | null; winRate: number | null; requests: { policy: number } });

describe("openclaw-rl eval --checkpoint (rehearsal)", () => {
  it("serves the base and two saved policies on stand-ins of their own, paired against the base, with different scores", async () => {
    const base = await runCliInProcess(["eval", ...common, "--checkpoint", "base"]);
    expect(base.stderr).toMatch(/serving v0 from the stand-in's base weights on http:\/\/127\.0\.0\.1:\d+/);
    expect(base.exitCode).toBe(0);
    const worse = await runCliInProcess(["eval", ...common, "--checkpoint", "v1"]);
    expect(worse.exitCode).toBe(0);
    const better = await runCliInProcess(["eval", ...common, "--checkpoint", path.join(runDir, "standin-policy", "policy-v2.json")]);
    expect(better.exitCode).toBe(0);
    expect(better.stdout).toMatch(/^2 · checkpoint policy-v2\.json\s/m);
    expect(better.stdout).toMatch(/^1 · checkpoint policy-v1\.json\s/m);

    const [v0, v1, v2] = evaluations();
    expect(v0).toMatchObject({ version: "0", served: "checkpoint", baseVersion: null });
    expect(v0!.checkpoint).toBeUndefined();
    expect(v1).toMatchObject({ version: "1", served: "checkpoint", checkpoint: path.join(runDir, "standin-policy", "policy-v1.json"), baseVersion: "0" });
    expect(v2).toMatchObject({ version: "2", served: "checkpoint", checkpoint: path.join(runDir, "standin-policy", "policy-v2.json"), baseVersion: "0" });
    // the same plan for every version: 2 openers × 2 samples × 3 turns of policy requests
    expect([v0, v1, v2].map((metrics) => metrics!.requests.policy)).toEqual([12, 12, 12]);
    // the AI-flavoured policy scores near 0, the plain one near 1, the base (uniform styles) between
    expect(v1!.meanScore).toBeLessThan(0.2);
    expect(v2!.meanScore).toBeGreaterThan(0.8);
    expect(v1!.meanScore).toBeLessThan(v0!.meanScore);
    expect(v2!.meanScore).toBeGreaterThan(v0!.meanScore);
    expect(v2!.winRate).toBeGreaterThan(v1!.winRate!);
  }, 300_000);

  it("refuses by name a version whose policy is not kept, a file that is no policy-vN.json, and one it cannot load", async () => {
    const missing = await runCliInProcess(["eval", ...common, "--checkpoint", "v7"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`no saved stand-in policy v7 (${path.join(runDir, "standin-policy", "policy-v7.json")}): not saved (the newest saved is v2)`);
    expect(missing.stderr).toContain("available: v1, v2, and base (the base weights); to keep more, start with --set engine.rehearsal.keep_policies=N (0 keeps every one)");
    // a version older than the newest kept one was saved and then dropped by retention: said so, with what is available
    writeFileSync(path.join(runDir, "standin-policy", "policy-v5.json"), readFileSync(path.join(runDir, "standin-policy", "policy-v2.json")));
    const dropped = await runCliInProcess(["eval", ...common, "--checkpoint", "v4"]);
    expect(dropped.exitCode).toBe(2);
    expect(dropped.stderr).toContain("no saved stand-in policy v4 (");
    expect(dropped.stderr).toContain("): retention dropped it (the stand-in trainer keeps the newest engine.rehearsal.keep_policies = 3)");
    expect(dropped.stderr).toContain("available: v1, v2, v5, and base (the base weights)");
    const unnamed = await runCliInProcess(["eval", ...common, "--checkpoint", path.join(runDir, "personas.jsonl")]);
    expect(unnamed.exitCode).toBe(2);
    expect(unnamed.stderr).toMatch(/is not a saved stand-in policy \(policy-vN\.json\)/);
    // a policy file the stand-in cannot load: its server exits before it is ready, and the error says why
    const broken = path.join(runDir, "standin-policy", "policy-v9.json");
    writeFileSync(broken, JSON.stringify({ format: POLICY_FILE_FORMAT, styles: ["plain"], logits: [1] }));
    const failed = await runCliInProcess(["eval", ...common, "--checkpoint", "v9"]);
    expect(failed.exitCode).toBe(2);
    expect(failed.stderr).toMatch(/checkpoint-policy-v9 .* exited \(2\) before it was ready: .*--policy-file .*policy-v9\.json: .*styles must be plain, bulleted, ai/);
  }, 60_000);
});
