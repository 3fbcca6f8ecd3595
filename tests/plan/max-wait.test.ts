// training.max_wait_s (a partial batch after a wait): refused by name where slime cannot train a short batch
// (tests/fixtures/slime-short-batch.json), and on the fork's Megatron the option that lets it, checked by its parser.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { goldenPlan, REPO_ROOT, trainArgv } from "../golden/golden-plan.ts";
import { parserProblems } from "./engine-parsers.ts";
import { recipeProblems } from "./recipe-problems.ts";

const shortBatch = JSON.parse(readFileSync(path.join(REPO_ROOT, "tests", "fixtures", "slime-short-batch.json"), "utf8")) as Record<string, { accepts_short_batch: boolean | string }>;

describe("training.max_wait_s", () => {
  it("is refused by name on upstream slime and on the FSDP backend, which cannot train a short batch", () => {
    expect(shortBatch.upstream!.accepts_short_batch).toBe(false);
    expect(shortBatch.fork_fsdp!.accepts_short_batch).toBe(false);
    const upstream = recipeProblems({ engine: { slime: { flavor: "upstream" } }, judge: { launch: "standalone" }, training: { max_wait_s: 60 } });
    expect(upstream).toEqual([expect.stringMatching(/^training\.max_wait_s: engine\.slime\.flavor upstream cannot train a batch shorter/)]);
    const fsdp = recipeProblems({ training: { max_wait_s: 60, lora: {} } });
    expect(fsdp).toEqual([expect.stringMatching(/^training\.max_wait_s: slime's FSDP backend splits and scales/)]);
    expect(recipeProblems({ training: { max_wait_s: -1 } })).toEqual([expect.stringMatching(/^training\.max_wait_s:/)]);
    // off (the default) is fine everywhere; rehearsal runs no slime
    expect(recipeProblems({ engine: { slime: { flavor: "upstream" } }, judge: { launch: "standalone" } })).toEqual([]);
    expect(recipeProblems({ engine: { kind: "rehearsal", slime: { flavor: "upstream" } }, model: { path: "builtin:qwen3" }, training: { max_wait_s: 60 } })).toEqual([]);
  });

  it("on the fork's Megatron passes --use-dynamic-global-batch-size, which the fork's parser has; off, the argv is unchanged", async () => {
    expect(shortBatch.fork_megatron!.accepts_short_batch).toBe("only with --use-dynamic-global-batch-size");
    const on = trainArgv(await goldenPlan("qwen3-4b-binary", ["training.max_wait_s=60"]));
    const off = trainArgv(await goldenPlan("qwen3-4b-binary"));
    expect(on).toContain("--use-dynamic-global-batch-size");
    expect(off).not.toContain("--use-dynamic-global-batch-size");
    expect(on.filter((token) => token !== "--use-dynamic-global-batch-size")).toEqual(off);
    expect(parserProblems("fork", on)).toEqual([]);
    expect(parserProblems("upstream", ["--use-dynamic-global-batch-size"])).not.toEqual([]);
  });
});
