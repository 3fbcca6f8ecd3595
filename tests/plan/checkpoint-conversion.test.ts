// convert-checkpoint: the plan of slime's own converter for each flavour and backend (held against the real
// converters' paths and options in tests/fixtures/checkpoint-facts.json), the refusal where slime is not installed,
// and a supervised run of a stand-in converter (a Python script with the real one's options) to a Hugging Face folder.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadRecipe, PACKAGE_ROOT } from "../../cli/recipe-file.ts";
import { planCheckpointConversion } from "../../launchers/slime/checkpoint-conversion.ts";
import { huggingFaceFolderState, runCheckpointConversion } from "../../launchers/slime/checkpoint-conversion-run.ts";
import { runCli } from "../cli/cli-process.ts";

interface ConverterFact {
  script: string;
  required: string[];
  used: string[];
}
const FACTS = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "tests", "fixtures", "checkpoint-facts.json"), "utf8")) as { converters: Record<string, Record<string, ConverterFact>> };

const CASES = [
  { flavor: "fork", backend: "megatron", recipe: "configs/qwen3-4b-binary.yaml", set: [] as string[] },
  { flavor: "upstream", backend: "megatron", recipe: "configs/qwen3-4b-binary.yaml", set: ["engine.slime.flavor=upstream", "judge.launch=standalone"] },
  { flavor: "fork", backend: "fsdp", recipe: "configs/qwen3-4b-binary-lora.yaml", set: [] as string[] },
] as const;

/** A run folder whose save folder holds iterations 4 and 9 (the tracker names 9) as Megatron / the fork's FSDP write them. */
function runFolder(backend: string): string {
  const runDir = mkdtempSync(path.join(tmpdir(), "convert-run-"));
  for (const iteration of [4, 9]) {
    const folder = path.join(runDir, "checkpoints", `iter_000000${iteration}`, backend === "fsdp" ? "model" : "");
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, backend === "fsdp" ? "__0_0.distcp" : "common.pt"), "weights");
  }
  writeFileSync(path.join(runDir, "checkpoints", "latest_checkpointed_iteration.txt"), "9");
  return runDir;
}

/** A slime root with a stand-in converter that parses the real one's options, refuses as it does, and writes HF files. */
function fakeSlimeRoot(fact: ConverterFact, exitCode = 0): string {
  const root = mkdtempSync(path.join(tmpdir(), "fake-slime-"));
  mkdirSync(path.join(root, path.dirname(fact.script)), { recursive: true });
  const options = fact.used.map((option) => `parser.add_argument(${JSON.stringify(option)}, required=${fact.required.includes(option) ? "True" : "False"})`).join("\n");
  writeFileSync(
    path.join(root, fact.script),
    `import argparse, json, os, shutil, sys
parser = argparse.ArgumentParser()
${options}
parser.add_argument("-f", "--force", action="store_true")
args = parser.parse_args()
if os.path.exists(args.output_dir) and not args.force:
    raise ValueError(f"Output directory {args.output_dir} already exists. Use --force to overwrite it.")
if not os.path.isdir(args.input_dir):
    raise FileNotFoundError(args.input_dir)
print("loading model from", args.input_dir, flush=True)
if ${exitCode} != 0:
    print("RuntimeError: stand-in converter told to fail", file=sys.stderr)
    sys.exit(${exitCode})
os.makedirs(args.output_dir)
json.dump({"argv": sys.argv[1:], "cwd": os.getcwd(), "pythonpath": os.environ.get("PYTHONPATH")}, open(os.path.join(args.output_dir, "converter-call.json"), "w"))
json.dump({"weight_map": {"lm_head.weight": "model-00000-of-00001.safetensors"}}, open(os.path.join(args.output_dir, "model.safetensors.index.json"), "w"))
open(os.path.join(args.output_dir, "model-00000-of-00001.safetensors"), "wb").write(b"\\0" * 64)
shutil.copy(os.path.join(args.origin_hf_dir, "config.json"), args.output_dir)
print("model-00000-of-00001.safetensors saved.", flush=True)
`,
  );
  return root;
}

function originModel(): string {
  const folder = mkdtempSync(path.join(tmpdir(), "hf-origin-"));
  writeFileSync(path.join(folder, "config.json"), '{"architectures":["Qwen3ForCausalLM"]}');
  return folder;
}

describe("checkpoint conversion plan", () => {
  for (const { flavor, backend, recipe: file, set } of CASES) {
    it(`${flavor} ${backend}: slime's own converter on the tracker's checkpoint, with the job's PYTHONPATH`, () => {
      const fact = FACTS.converters[flavor]![backend]!;
      const runDir = runFolder(backend);
      const { recipe } = loadRecipe({ recipe: path.join(PACKAGE_ROOT, file), set: [...set, "engine.slime.root=/opt/slime-x", "engine.slime.python=/venv/bin/python"] });
      const plan = planCheckpointConversion(recipe, { runDir, outDir: "/tmp/out-hf-x", packageRoot: PACKAGE_ROOT });
      expect(plan.spec.argv).toEqual(["/venv/bin/python", fact.script, "--input-dir", path.join(runDir, "checkpoints", "iter_0000009"), "--output-dir", "/tmp/out-hf-x", "--origin-hf-dir", recipe.model.path]);
      for (const option of fact.required) expect(plan.spec.argv).toContain(option);
      expect(plan.spec.argv.filter((item) => item.startsWith("--")).every((option) => fact.used.includes(option))).toBe(true);
      expect(plan.spec.cwd).toBe("/opt/slime-x");
      expect(plan.spec.env.PYTHONPATH).toBe(backend === "megatron" ? `/opt/Megatron-LM:${PACKAGE_ROOT}/native:/opt/slime-x` : `${PACKAGE_ROOT}/native:/opt/slime-x`);
      expect(plan.iteration).toBe(9);
      expect(plan.missing.map((error) => error.code)).toEqual(["CONVERTER_MISSING"]);
      expect(planCheckpointConversion(recipe, { runDir, iteration: 4, outDir: "/tmp/out-hf-x", packageRoot: PACKAGE_ROOT }).spec.argv[3]).toBe(path.join(runDir, "checkpoints", "iter_0000004"));
    });
  }

  it("names a missing checkpoint and an output folder that exists", () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "convert-empty-"));
    const { recipe } = loadRecipe({ recipe: path.join(PACKAGE_ROOT, "configs/qwen3-4b-binary.yaml"), set: [`engine.slime.root=${fakeSlimeRoot(FACTS.converters.fork!.megatron!)}`] });
    const plan = planCheckpointConversion(recipe, { runDir, outDir: runDir, packageRoot: PACKAGE_ROOT });
    expect(plan.iteration).toBeNull();
    expect(plan.missing.map((error) => [error.code, error.path])).toEqual([
      ["CHECKPOINT_MISSING", "training.save_dir"],
      ["PATH_UNWRITABLE", "--out"],
    ]);
  });
});

describe("openclaw-rl convert-checkpoint", () => {
  it("--plan prints the command and what is missing; without slime the run refuses with the code and hint (exit 2)", async () => {
    const runDir = runFolder("megatron");
    const common = ["convert-checkpoint", "--recipe", "configs/qwen3-4b-binary.yaml", "--set", "engine.slime.root=/nonexistent/slime", "--run", runDir, "--out", path.join(runDir, "hf")];
    const plan = await runCli([...common, "--plan", "--json"]);
    expect(plan.exitCode).toBe(0);
    const json = JSON.parse(plan.stdout) as { argv: string[]; iteration: number; missing: Array<{ code: string; hint: string }> };
    expect(json.argv.slice(0, 2)).toEqual(["python3", "tools/convert_torch_dist_to_hf.py"]);
    expect(json.iteration).toBe(9);
    expect(json.missing).toEqual([expect.objectContaining({ code: "CONVERTER_MISSING", hint: expect.stringContaining("engine.slime.root") })]);
    const refused = await runCli(common);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("engine.slime.root: slime's converter /nonexistent/slime/tools/convert_torch_dist_to_hf.py is not there");
    expect(refused.stderr).toContain("hint:");
    expect(existsSync(path.join(runDir, "hf"))).toBe(false);
  });
});

describe("a supervised conversion", () => {
  for (const { flavor, backend, recipe: file, set } of CASES) {
    it(`${flavor} ${backend}: runs the stand-in converter to completion and checks the Hugging Face folder it wrote`, async () => {
      const fact = FACTS.converters[flavor]![backend]!;
      const runDir = runFolder(backend);
      const root = fakeSlimeRoot(fact);
      const origin = originModel();
      const { recipe } = loadRecipe({ recipe: path.join(PACKAGE_ROOT, file), set: [...set, `engine.slime.root=${root}`, "engine.slime.python=/usr/bin/python3", `model.path=${origin}`] });
      const outDir = path.join(runDir, "hf-iter-9");
      const plan = planCheckpointConversion(recipe, { runDir, outDir, packageRoot: PACKAGE_ROOT });
      expect(plan.missing).toEqual([]);
      const outcome = await runCheckpointConversion(plan, { runDir });
      expect(outcome.result).toMatchObject({ ok: true, exitCode: 0, killedByUs: false });
      expect(outcome.folder).toEqual({ ready: true, detail: `${outDir}: config.json and 1 safetensors shard(s)` });
      const call = JSON.parse(readFileSync(path.join(outDir, "converter-call.json"), "utf8")) as { argv: string[]; cwd: string; pythonpath: string };
      expect(call.argv).toEqual(plan.spec.argv.slice(2));
      expect(call.cwd).toBe(root);
      expect(call.pythonpath).toBe(plan.spec.env.PYTHONPATH);
      expect(readFileSync(outcome.logFile!, "utf8")).toContain("model-00000-of-00001.safetensors saved.");
      expect(existsSync(path.join(runDir, "pids.json"))).toBe(false); // (a live run's own pids.json is never rewritten)
    });
  }

  it("a converter that fails is a failed result with its last line; the folder is reported incomplete", async () => {
    const runDir = runFolder("megatron");
    const root = fakeSlimeRoot(FACTS.converters.upstream!.megatron!, 3);
    const { recipe } = loadRecipe({ recipe: path.join(PACKAGE_ROOT, "configs/qwen3-4b-binary.yaml"), set: [`engine.slime.root=${root}`, "engine.slime.python=/usr/bin/python3", `model.path=${originModel()}`] });
    const outcome = await runCheckpointConversion(planCheckpointConversion(recipe, { runDir, outDir: path.join(runDir, "hf"), packageRoot: PACKAGE_ROOT }), { runDir });
    expect(outcome.result.ok).toBe(false);
    expect(outcome.result.summary).toMatch(/^convert-checkpoint exited with code 3 after .*: RuntimeError: stand-in converter told to fail$/);
    expect(huggingFaceFolderState(path.join(runDir, "hf")).ready).toBe(false);
  });
});
