// opd / combine score the policy's token ids with the judge: a judge tokenizer that gives tokens other ids is refused
// at start, naming the first difference; binary (no teacher) and same-family tokenizers are fine.
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { JudgeThread } from "../../orchestrator/judging/judge-thread.ts";
import { assertTeacherReadsPolicyIds } from "../../orchestrator/judging/teacher-vocabulary.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { builtinQwen3Folder, loadTokenizerFiles, type TokenizerFiles } from "../../lib/model/model-files.ts";
import { vocabularyDifference } from "../../lib/model/vocabulary.ts";
import { MemorySink } from "./judge-harness.ts";

let policy: TokenizerFiles;
let folder: string;
beforeAll(async () => {
  policy = await loadTokenizerFiles("builtin:qwen3");
  // a judge tokenizer of another family, in miniature: two ordinary tokens trade ids
  folder = await mkdtemp(path.join(tmpdir(), "other-vocab-"));
  const json = JSON.parse(await readFile(path.join(builtinQwen3Folder(), "tokenizer.json"), "utf8")) as { model: { vocab: Record<string, number> } };
  const [a, b] = ["hello", "world"];
  [json.model.vocab[a], json.model.vocab[b]] = [json.model.vocab[b]!, json.model.vocab[a]!];
  await writeFile(path.join(folder, "tokenizer.json"), JSON.stringify(json));
  await copyFile(path.join(builtinQwen3Folder(), "tokenizer_config.json"), path.join(folder, "tokenizer_config.json"));
});
afterAll(async () => rm(folder, { recursive: true, force: true }));

describe("teacher vocabulary", () => {
  it("names the first token whose id differs, and accepts the same vocabulary", async () => {
    const other = await loadTokenizerFiles(folder);
    expect(vocabularyDifference(policy, other)).toMatch(/^"(hello|world)" is id \d+ in builtin:qwen3 and id \d+ in .*other-vocab-/);
    expect(vocabularyDifference(policy, await loadTokenizerFiles(builtinQwen3Folder()))).toBeNull();
    const extra = { ...other, tokenizerJson: { ...policy.tokenizerJson, added_tokens: [...(policy.tokenizerJson.added_tokens as unknown[]), { id: 999_999, content: "<|extra|>" }] } };
    expect(vocabularyDifference(policy, extra)).toMatch(/has \d+ tokens/);
    expect(() => assertTeacherReadsPolicyIds("combine", policy, other)).toThrow(OpenclawRlError);
    expect(() => assertTeacherReadsPolicyIds("binary", policy, other)).not.toThrow();
  });

  it("the judging thread refuses to start for opd with such a judge tokenizer, and starts for binary", async () => {
    const start = (method: "opd" | "binary") =>
      JudgeThread.start({
        data: { recipe: recipeSchema.parse({ engine: { kind: "rehearsal" }, method }), recordsDir: folder, policySource: "builtin:qwen3", judgeSource: folder, judgeUrl: null, retryBackoffMs: 5, turnRetryDelayMs: 10 },
        bus: new EventBus(),
        sink: new MemorySink(),
        versions: new WeightVersionTracker(),
      });
    const refused = await start("opd").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenclawRlError);
    expect(refused).toMatchObject({ code: "RECIPE_INVALID", path: "judge.tokenizer_path", message: expect.stringMatching(/judge's tokenizer differs from the policy.s: "(hello|world)" is id/) });
    const binary = await start("binary");
    await binary.drain(1000);
  });
});
