// training.batch_size: a smaller batch keeps every sample in exactly one optimiser step (slime's global batch follows
// the rollout batch at one step per rollout, tests/fixtures/slime-batch-size.json), checked by both flavours' parsers,
// and a batch the trainer's data-parallel ranks cannot split evenly is refused by name.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { RecipeInput } from "../../contracts/recipe.ts";
import { parseRecipe } from "../../cli/recipe-file.ts";
import { placementProblems } from "../../launchers/placement.ts";
import { trainerDataParallel } from "../../launchers/trainer-batch.ts";
import { goldenPlan, REPO_ROOT, trainArgv } from "../golden/golden-plan.ts";
import { parserProblems, type ParserName } from "./engine-parsers.ts";

const batchFlags = JSON.parse(readFileSync(path.join(REPO_ROOT, "tests", "fixtures", "slime-batch-size.json"), "utf8")) as {
  reference_run_scripts: Record<string, { rollout_batch_size: [number, number]; n_samples_per_prompt: [number, number]; num_steps_per_rollout: [number, number] }>;
};

/** The value after `flag` in argv, or null when the flag is absent. */
const valueOf = (argv: string[], flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1]! : null);

/** slime's global batch size as its parser derives it (fixture: flags.num_steps_per_rollout). */
function optimiserStepBatch(argv: string[]): number {
  const steps = Number(valueOf(argv, "--num-steps-per-rollout"));
  return Math.floor((Number(valueOf(argv, "--rollout-batch-size")) * Number(valueOf(argv, "--n-samples-per-prompt"))) / steps);
}

describe("training.batch_size", () => {
  it("the default is the reference's: 16 prompts of one sample, one optimiser step per rollout", async () => {
    const reference = batchFlags.reference_run_scripts.binary!;
    const argv = trainArgv(await goldenPlan("qwen3-4b-binary"));
    expect(Number(valueOf(argv, "--rollout-batch-size"))).toBe(reference.rollout_batch_size[1]);
    expect(Number(valueOf(argv, "--n-samples-per-prompt"))).toBe(reference.n_samples_per_prompt[1]);
    expect(Number(valueOf(argv, "--num-steps-per-rollout"))).toBe(reference.num_steps_per_rollout[1]);
  });

  const flavours: Array<{ parser: ParserName; set: string[] }> = [
    { parser: "fork", set: [] },
    { parser: "upstream", set: ["engine.slime.flavor=upstream", "judge.launch=standalone"] },
  ];
  for (const { parser, set } of flavours) {
    it(`a smaller batch is one optimiser step over exactly its samples (${parser} parser)`, async () => {
      for (const batch of [16, 4, 1]) {
        const argv = trainArgv(await goldenPlan("qwen3-4b-binary", [...set, `training.batch_size=${batch}`]));
        expect(parserProblems(parser, argv)).toEqual([]);
        // no --global-batch-size: the parser derives it, so it cannot disagree with the rollout batch
        expect(valueOf(argv, "--global-batch-size")).toBeNull();
        expect(optimiserStepBatch(argv)).toBe(batch);
      }
    });
  }
});

describe("the batch against the trainer's data-parallel ranks", () => {
  const problems = (input: Partial<RecipeInput>) => placementProblems(parseRecipe(input)).map((problem) => ({ code: problem.code, path: problem.path }));

  it("is refused by name where the ranks cannot split it evenly", () => {
    const twoRanks = { actor_gpus: 4, actor_tp: 2 }; // Megatron: 4 / (2 × 1 × 1)
    expect(trainerDataParallel(parseRecipe({ cluster: twoRanks }))).toBe(2);
    expect(problems({ cluster: twoRanks, training: { batch_size: 3 } })).toEqual([{ code: "BATCH_MISALIGNED", path: "training.batch_size" }]);
    expect(problems({ cluster: twoRanks, training: { batch_size: 4 } })).toEqual([]);
    // FSDP (LoRA) shards data over every trainer GPU
    const lora = { cluster: { gpus_per_node: 4, actor_gpus: 2, rollout_gpus: 1, prm_gpus: 1, rollout_tp: 1, prm_tp: 1 } };
    expect(trainerDataParallel(parseRecipe({ ...lora, training: { lora: {} } }))).toBe(2);
    expect(problems({ ...lora, training: { lora: {}, batch_size: 5 } })).toEqual([{ code: "BATCH_MISALIGNED", path: "training.batch_size" }]);
    // the default trainer (4 GPUs at tensor parallel 4) is one rank: any batch
    expect(problems({ training: { batch_size: 3 } })).toEqual([]);
  });

  it("training.max_wait_s needs a single rank: the fork trims a partial batch to whole rank multiples and fails below one", () => {
    expect(problems({ cluster: { actor_gpus: 4, actor_tp: 2 }, training: { max_wait_s: 60 } })).toEqual([{ code: "BATCH_MISALIGNED", path: "training.max_wait_s" }]);
    expect(problems({ training: { max_wait_s: 60 } })).toEqual([]);
  });
});
