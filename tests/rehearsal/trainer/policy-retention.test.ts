// The stand-in trainer keeps the newest engine.rehearsal.keep_policies policy-vN.json files (0: every one), the
// files `openclaw-rl eval --checkpoint vN` serves: its WeightSync run for real in Python, the policy's HTTP answered
// by a recording function (no server), and the planned trainer argv carrying the recipe's value.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { recipeSchema } from "../../../contracts/recipe.ts";
import { rehearsalProcesses, STANDIN_PYTHON } from "../../../launchers/rehearsal-plan.ts";

const root = path.resolve(import.meta.dirname, "..", "..", "..");

const SCRIPT = `
import json, os, sys
sys.path.insert(0, ${JSON.stringify(path.join(root, "rehearsal", "trainer"))})
import trainer
trainer.http_json = lambda method, url, body=None: {"success": True}
trainer.emit = lambda event, **fields: None
class Learner:
    def write_policy_file(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").write("{}")
    def probabilities(self):
        return {}
sync = trainer.WeightSync("http://127.0.0.1:1", sys.argv[1], Learner(), int(sys.argv[2]))
for _ in range(6):
    sync.update()
`;

async function keptAfterSixUpdates(keep: number): Promise<string[]> {
  const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-policy-retention-"));
  await execa(STANDIN_PYTHON, ["-c", SCRIPT, runDir, String(keep)]);
  return readdirSync(path.join(runDir, "standin-policy")).sort();
}

describe("stand-in policy retention (engine.rehearsal.keep_policies)", () => {
  it("keeps the newest N policy files, or every one with 0", async () => {
    expect(await keptAfterSixUpdates(3)).toEqual(["policy-v4.json", "policy-v5.json", "policy-v6.json"]);
    expect(await keptAfterSixUpdates(1)).toEqual(["policy-v6.json"]);
    expect(await keptAfterSixUpdates(0)).toEqual([1, 2, 3, 4, 5, 6].map((version) => `policy-v${version}.json`));
  });

  it("the planned trainer gets the recipe's value", () => {
    const recipe = recipeSchema.parse({ engine: { kind: "rehearsal", rehearsal: { keep_policies: 0 } }, model: { path: "builtin:qwen3" } });
    const context = { packageRoot: root, runDir: "/tmp/run", bridgeUrl: "http://127.0.0.1:1", bridgeToken: "t", environment: {} };
    const trainer = rehearsalProcesses(recipe, context).find((process) => process.name === "rehearsal-trainer");
    expect(trainer!.argv.join(" ")).toContain("--run-dir /tmp/run --keep-policies 0");
  });
});
