// The policy's and the judge's tokenizer come from one rule (lib/model/tokenizer-sources.ts): the stand-ins' plan,
// doctor and the orchestrator's judging thread read the same folder, and a judge without a path of its own (a copy of
// the policy) reads the policy's tokenizer, model.tokenizer_path included.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { PlanContext } from "../../contracts/plan.ts";
import { recipeSchema, type RecipeInput } from "../../contracts/recipe.ts";
import { checkpointFolders } from "../../launchers/checks/checkpoint-check.ts";
import { rehearsalProcesses } from "../../launchers/rehearsal-plan.ts";
import { judgeTokenizerSource, policyTokenizerSource } from "../../lib/model/tokenizer-sources.ts";
import { startOrchestrator } from "../../orchestrator/run.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const context: PlanContext = { packageRoot: root, runDir: "/tmp/run", bridgeUrl: "http://127.0.0.1:4567", bridgeToken: "sekret", environment: {} };

const cases: Array<{ recipe: RecipeInput; policy: [string, string]; judge: [string, string] }> = [
  { recipe: { model: { path: "/w/policy" } }, policy: ["model.path", "/w/policy"], judge: ["model.path", "/w/policy"] },
  { recipe: { model: { path: "/w/policy", tokenizer_path: "builtin:qwen3" } }, policy: ["model.tokenizer_path", "builtin:qwen3"], judge: ["model.tokenizer_path", "builtin:qwen3"] },
  { recipe: { model: { path: "/w/policy", tokenizer_path: "/t/policy" }, judge: { path: "/w/judge" } }, policy: ["model.tokenizer_path", "/t/policy"], judge: ["judge.path", "/w/judge"] },
  { recipe: { model: { path: "/w/policy" }, judge: { path: "/w/judge", tokenizer_path: "/t/judge" } }, policy: ["model.path", "/w/policy"], judge: ["judge.tokenizer_path", "/t/judge"] },
];

describe("tokenizer sources", () => {
  it("follow one rule: the judge's tokenizer_path, its path, else the policy's tokenizer", () => {
    for (const { recipe, policy, judge } of cases) {
      const parsed = recipeSchema.parse({ engine: { kind: "rehearsal" }, ...recipe });
      expect([policyTokenizerSource(parsed), judgeTokenizerSource(parsed)], JSON.stringify(recipe)).toEqual([
        { key: policy[0], path: policy[1] },
        { key: judge[0], path: judge[1] },
      ]);
    }
  });

  it("the stand-ins' plan and doctor read the tokenizers the rule names", () => {
    for (const { recipe, policy, judge } of cases) {
      const parsed = recipeSchema.parse({ engine: { kind: "rehearsal" }, ...recipe });
      const [policyServer, judgeServer] = rehearsalProcesses(parsed, context);
      const tokenizerArgument = (argv: string[]) => argv[argv.indexOf("--tokenizer") + 1];
      expect([tokenizerArgument(policyServer!.argv), tokenizerArgument(judgeServer!.argv)], JSON.stringify(recipe)).toEqual([policy[1], judge[1]]);
      const doctorReads = checkpointFolders(parsed).filter((folder) => !folder.needsWeights).map((folder) => [folder.key, folder.source]);
      expect(doctorReads, JSON.stringify(recipe)).toEqual(policy[1] === judge[1] ? [policy] : [policy, judge]);
    }
  });

  it("the orchestrator's judging thread reads the policy's tokenizer_path for a judge without a path of its own", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-tokenizers-"));
    // the weights' folder holds no tokenizer: model.tokenizer_path names the tokenizer, for the policy and its judge copy
    const recipe = recipeSchema.parse({
      method: "binary",
      model: { path: path.join(runDir, "weights-only"), tokenizer_path: "builtin:qwen3" },
      judge: { launch: "external", url: "http://127.0.0.1:9" },
      engine: { kind: "external", policy_url: "http://127.0.0.1:9" },
      records: { dir: runDir },
    });
    const orchestrator = await startOrchestrator({
      recipe, runDir, apiKey: undefined, engines: { policy: "http://127.0.0.1:9", judge: "http://127.0.0.1:9" },
      readiness: () => ({ ready: true, reason: "test", retryAfterS: 0 }), ports: { proxy: 0, admin: 0 },
    });
    try {
      expect((await fetch(`${orchestrator.urls.admin}/status`, { headers: { authorization: `Bearer ${orchestrator.adminToken}` } })).status).toBe(200);
    } finally {
      await orchestrator.stop();
    }
  });
});
