// method hybrid in the recipe: the reference's defaults (tests/fixtures/openclaw-rl-hybrid/defaults.json names where each
// comes from), the cross-field refusals by YAML path, and the custom-config keys the trainer's hybrid loss reads.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseRecipe } from "../../cli/recipe-file.ts";
import { customConfig } from "../../launchers/slime/train-args.ts";
import { REPO_ROOT } from "../golden/golden-plan.ts";
import { recipeProblems } from "./recipe-problems.ts";

interface DefaultsFixture {
  keys: Record<string, { value: unknown; source: string }>;
}

const defaults = JSON.parse(readFileSync(path.join(REPO_ROOT, "tests", "fixtures", "openclaw-rl-hybrid", "defaults.json"), "utf8")) as DefaultsFixture;

const problems = recipeProblems;

describe("method hybrid in the recipe", () => {
  it("defaults to the reference launcher's values", () => {
    const recipe = parseRecipe({ method: "hybrid" });
    for (const [key, { value }] of Object.entries(defaults.keys)) {
      expect(recipe.hybrid[key as keyof typeof recipe.hybrid], `hybrid.${key}`).toEqual(value);
    }
    expect(Object.keys(defaults.keys).sort()).toEqual(Object.keys(recipe.hybrid).filter((key) => !key.endsWith("_votes")).sort());
  });

  it("asks judge.votes hint and evaluation votes unless hybrid says otherwise (the reference's --hint-m falls back to --prm-m)", () => {
    expect(parseRecipe({ method: "hybrid" }).derived.hybridVotes).toEqual({ hint: 3, evaluation: 3 });
    expect(parseRecipe({ method: "hybrid", judge: { votes: 5 }, hybrid: { hint_votes: 4 } }).derived.hybridVotes).toEqual({ hint: 4, evaluation: 5 });
  });

  it("refuses, by YAML path with the reason, the recipes where no trainer of ours can run its teacher", () => {
    const teacher = (raw: Record<string, unknown>) => problems({ method: "hybrid", ...raw }).filter((line) => line.startsWith("hybrid.teacher:"));
    expect(teacher({ engine: { kind: "external", policy_url: "http://p:1" }, judge: { launch: "external", url: "http://j:1" } })).toEqual([
      expect.stringMatching(/^hybrid\.teacher: .*engine\.kind external runs no trainer of ours; change that, or use method: combine/),
    ]);
    expect(teacher({ engine: { kind: "external", policy_url: "http://p:1" }, judge: { launch: "external", url: "http://j:1" }, sink: { kind: "jsonl", path: "s.jsonl" } })).toEqual([
      expect.stringMatching(/^hybrid\.teacher: .*with sink\.kind jsonl no trainer takes the samples/),
    ]);
    expect(teacher({ training: { backend: "fsdp" } })).toEqual([expect.stringMatching(/^hybrid\.teacher: .*training\.backend is fsdp/)]);
    expect(teacher({ cluster: { actor_cp: 2 } })).toEqual([expect.stringMatching(/^hybrid\.teacher: .*cluster\.actor_cp is 2/)]);
    expect(teacher({ engine: { kind: "rehearsal" } })).toEqual([]); // the stand-in trainer has the hybrid's loss
    expect(problems({ method: "hybrid" })).toEqual([]);
  });

  it("refuses what belongs to other methods, and weights that learn nothing", () => {
    expect(problems({ method: "hybrid", opd: { topk: 4 } })).toEqual([expect.stringMatching(/^opd\.topk: method hybrid takes its top-K width from hybrid\.topk/)]);
    expect(problems({ method: "hybrid", episodes: { environment: "toolcall" } })).toEqual([expect.stringMatching(/^method: episodes are trained with step rewards/)]);
    expect(problems({ method: "hybrid", engine: { slime: { extra_args: ["--use-rollout-logprobs"] } } })).toEqual([expect.stringMatching(/^engine\.slime\.extra_args: method hybrid compares the teacher with the trainer's own old log-probs/)]);
    expect(problems({ method: "hybrid", hybrid: { w_rl: 0, w_opd: 0 } })).toEqual(["hybrid: hybrid.w_rl and hybrid.w_opd are both 0: nothing would be learned"]);
    expect(problems({ method: "hybrid", hybrid: { selection: "longest" } })).toEqual([expect.stringMatching(/^hybrid\.selection: .*sequence_optimal/)]);
  });

  it("leaves opd's teacher rules to opd and combine (a hybrid sample carries no opd teacher)", () => {
    expect(problems({ method: "hybrid", opd: { teacher: "engine" }, sampling: { temperature: 0 } })).toEqual([]);
    expect(parseRecipe({ method: "hybrid", opd: { teacher: "engine" } }).derived.teacher).toBe("trainer");
  });

  it("hands the hybrid's knobs to the trainer as the contract's flat keys, combine's as before", () => {
    const hybrid = parseRecipe({ method: "hybrid", hybrid: { selection: "token_optimal", subset: "overlap", topk: 8, clip: 0.5, w_rl: 0.5, w_opd: 2 }, combine: { w_rl: 9 } });
    expect(customConfig(hybrid)).toEqual({
      openclaw_rl_w_rl: 0.5,
      openclaw_rl_w_opd: 2,
      openclaw_rl_hybrid_selection: "token_optimal",
      openclaw_rl_hybrid_subset: "overlap",
      openclaw_rl_hybrid_topk: 8,
      openclaw_rl_hybrid_clip: 0.5,
      openclaw_rl_teacher: "trainer",
    });
    expect(customConfig(parseRecipe({ method: "combine" }))).toEqual({ openclaw_rl_w_rl: 1, openclaw_rl_w_opd: 1, openclaw_rl_topk: 0, openclaw_rl_teacher: "trainer" });
  });
});
