// Golden plans: every shipped GPU recipe's processes (argv, env with secrets masked, cwd) and files, compared
// with tests/golden/<recipe>.argv.json (the fork) and <recipe>.upstream.argv.json (upstream slime, judge standalone;
// the recipes upstream refuses are in engine-options.test.ts). Regenerate with UPDATE_GOLDEN=1 and review the diff.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { planJson } from "../../cli/commands/plan.ts";
import { goldenPlan, REPO_ROOT } from "./golden-plan.ts";

const RECIPES = [
  "qwen3-4b-binary",
  "qwen3-4b-opd",
  "qwen3-4b-opd-topk",
  "qwen3-4b-combine",
  "qwen3-4b-hybrid",
  "qwen3-4b-binary-lora",
  "qwen3-4b-opd-lora",
  "qwen3-4b-combine-lora",
  "multinode-example",
];
/** Upstream runs what it can of each recipe: its judge is a standalone SGLang server (it has no --prm-* options). */
const UPSTREAM_RECIPES = ["qwen3-4b-binary", "qwen3-4b-opd", "qwen3-4b-combine", "qwen3-4b-combine-lora", "qwen3-4b-hybrid", "multinode-example"];
export const UPSTREAM_SET = ["engine.slime.flavor=upstream", "judge.launch=standalone"];
const update = process.env.UPDATE_GOLDEN === "1";

describe("golden launch plans", () => {
  for (const name of RECIPES) {
    it(`${name} matches tests/golden/${name}.argv.json`, async () => {
      const actual = planJson(await goldenPlan(name));
      const file = path.join(REPO_ROOT, "tests", "golden", `${name}.argv.json`);
      if (update) writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
      expect(actual).toEqual(JSON.parse(readFileSync(file, "utf8")));
    });
  }

  for (const name of UPSTREAM_RECIPES) {
    it(`${name} on upstream slime matches tests/golden/${name}.upstream.argv.json`, async () => {
      const actual = planJson(await goldenPlan(name, UPSTREAM_SET));
      const file = path.join(REPO_ROOT, "tests", "golden", `${name}.upstream.argv.json`);
      if (update) writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
      expect(actual).toEqual(JSON.parse(readFileSync(file, "utf8")));
    });
  }

  it("never puts the bridge token on a command line, and masks it in the printed env", async () => {
    const plan = await goldenPlan("qwen3-4b-combine");
    for (const process of plan.processes) expect(process.argv.join(" ")).not.toContain("golden-bridge-token");
    const printed = JSON.stringify(planJson(plan));
    expect(printed).not.toContain("golden-bridge-token");
    expect(printed).toContain('"OPENCLAW_RL_BRIDGE_TOKEN":"***"');
  });
});
