// The resolved recipe (contracts/recipe/resolved-recipe.ts): parsing computes each derived value once, from the keys it
// names; the run folder's recipe.resolved.yaml holds only the keys and parses back to the same resolved recipe.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { recipeSchema, resolveRecipe } from "../../contracts/recipe.ts";
import { readResolvedRecipe, resolvedRecipePath, writeResolvedRecipe } from "../../launchers/resolved-recipe.ts";

describe("the resolved recipe", () => {
  it("defaults: megatron, the policy as judge and reference, the engine as opd's teacher where the trainer cannot", () => {
    const recipe = recipeSchema.parse({});
    expect(recipe.derived).toEqual({
      judgeUrl: null,
      engineUrls: { policy: null, judge: null }, // slime's router, announced on the bridge
      judgePath: "/models/Qwen3-4B-Thinking-2507",
      trainingBackend: "megatron",
      maxTokensPerGpu: 32768,
      referenceModelPath: "/models/Qwen3-4B-Thinking-2507",
      teacher: "engine", // method binary has no teacher
      teacherTemperature: 0.6,
      trainerTeacherGap: null,
      hybridTrainerGap: null,
      hybridVotes: { hint: 3, evaluation: 3 },
      episodesOn: false,
      environmentUrl: null,
      environmentName: null,
      standinStreamForm: "legacy",
      startingWeights: { kind: "base", path: "/models/Qwen3-4B-Thinking-2507" },
    });
  });

  it("the trainer's backend and its token budget: fsdp with LoRA, 8192 tokens per GPU", () => {
    const recipe = recipeSchema.parse({ engine: { kind: "rehearsal" }, training: { lora: {} } });
    expect([recipe.derived.trainingBackend, recipe.derived.maxTokensPerGpu]).toEqual(["fsdp", 8192]);
    expect(recipeSchema.parse({ training: { max_tokens_per_gpu: 4096 } }).derived.maxTokensPerGpu).toBe(4096);
  });

  it("the judge's checkpoint, the reference, and where and at what temperature the teacher runs", () => {
    const rehearsal = recipeSchema.parse({ method: "opd", engine: { kind: "rehearsal" }, judge: { path: "/m/judge" }, training: { ref_load: "/m/ref" }, opd: { teacher_temperature: 1 } });
    expect(rehearsal.derived).toMatchObject({ judgePath: "/m/judge", referenceModelPath: "/m/ref", teacher: "trainer", teacherTemperature: 1, trainerTeacherGap: null });
    const slime = recipeSchema.parse({ method: "opd", judge: { path: "/m/judge" } }); // slime's teacher is --ref-load, not judge.path
    expect(slime.derived.teacher).toBe("engine");
    expect(slime.derived.trainerTeacherGap).toContain("judge.path /m/judge names another model");
  });

  it("the external judge's URL, where the orchestrator reaches the engines, and the hybrid's vote counts", () => {
    const external = recipeSchema.parse({ engine: { kind: "external", policy_url: "http://127.0.0.1:9001", judge_url: "http://127.0.0.1:9003" }, judge: { launch: "external" } });
    expect(external.derived.judgeUrl).toBe("http://127.0.0.1:9003");
    expect(external.derived.engineUrls).toEqual({ policy: "http://127.0.0.1:9001", judge: "http://127.0.0.1:9003" });
    const rehearsal = recipeSchema.parse({ engine: { kind: "rehearsal", rehearsal: { policy_port: 4100, judge_port: 4101 } } });
    expect(rehearsal.derived.engineUrls).toEqual({ policy: "http://127.0.0.1:4100", judge: "http://127.0.0.1:4101" });
    expect(recipeSchema.parse({ judge: { launch: "standalone", port: 4200 } }).derived.engineUrls).toEqual({ policy: null, judge: "http://127.0.0.1:4200" });
    const hybrid = recipeSchema.parse({ method: "hybrid", engine: { kind: "rehearsal" }, judge: { votes: 5 }, hybrid: { eval_votes: 2 } });
    expect([hybrid.derived.hybridVotes, hybrid.derived.teacher]).toEqual([{ hint: 5, evaluation: 2 }, "trainer"]);
  });

  it("the environment: a built-in one on loopback, or the server episodes.env_url names", () => {
    const builtIn = recipeSchema.parse({ engine: { kind: "rehearsal" }, episodes: { environment: "terminal", environment_port: 18123 } });
    expect(builtIn.derived).toMatchObject({ episodesOn: true, environmentUrl: "http://127.0.0.1:18123", environmentName: "terminal" });
    const server = recipeSchema.parse({ engine: { kind: "rehearsal" }, episodes: { env_url: "http://127.0.0.1:9100", tasks: "tasks.jsonl" } });
    expect(server.derived).toMatchObject({ episodesOn: true, environmentUrl: "http://127.0.0.1:9100", environmentName: "http://127.0.0.1:9100" });
  });

  it("what the trainer starts from: slime resumes training.load_dir, rehearsal the base weights, external unknown", () => {
    expect(recipeSchema.parse({ training: { load_dir: "ckpt" } }).derived.startingWeights).toEqual({ kind: "checkpoint", path: "ckpt" });
    expect(recipeSchema.parse({ engine: { kind: "rehearsal" }, training: { load_dir: "ckpt" } }).derived.startingWeights).toMatchObject({ kind: "base" });
    expect(recipeSchema.parse({ engine: { kind: "external", policy_url: "http://127.0.0.1:9" }, judge: { launch: "external", url: "http://127.0.0.1:10" } }).derived.startingWeights).toBeNull();
  });

  it("the stand-in's stream form: engine.rehearsal.stream_form, else the slime flavour's SGLang's", () => {
    expect(recipeSchema.parse({ judge: { launch: "standalone" }, engine: { slime: { flavor: "upstream" } } }).derived.standinStreamForm).toBe("incremental");
    expect(recipeSchema.parse({ engine: { slime: { stream_output_flag: "none" } } }).derived.standinStreamForm).toBe("cumulative");
    expect(recipeSchema.parse({ engine: { kind: "rehearsal", rehearsal: { stream_form: "cumulative" } } }).derived.standinStreamForm).toBe("cumulative");
  });

  it("resolving a changed recipe again derives from its new keys, not the old values", () => {
    const recipe = recipeSchema.parse({ engine: { kind: "rehearsal" } });
    expect(resolveRecipe({ ...recipe, training: { ...recipe.training, lora: { rank: 8, alpha: 16, targets: ["q_proj"] } } }).derived.trainingBackend).toBe("fsdp");
  });

  it("derived is not a key a recipe file may set", () => {
    const result = recipeSchema.safeParse({ derived: { judgeUrl: "http://127.0.0.1:1" } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain("derived");
  });

  it("recipe.resolved.yaml holds the keys and parses back to the same resolved recipe", () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "resolved-recipe-"));
    const recipe = recipeSchema.parse({ method: "combine", engine: { kind: "rehearsal" }, episodes: { environment: "toolcall" } });
    writeResolvedRecipe(runDir, recipe);
    expect(Object.keys(parse(readFileSync(resolvedRecipePath(runDir), "utf8")) as object)).not.toContain("derived");
    expect(readResolvedRecipe(runDir)).toEqual(recipe);
  });
});
