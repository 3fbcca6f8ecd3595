// The recipe schema as `plan` relies on it: defaults of the reference, every cross-field rule naming its YAML
// path, unknown keys, and --set values typed by the schema.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OpenclawRlError, OpenclawRlErrorList } from "../../contracts/errors.ts";
import { applySet, loadRecipe, parseRecipe } from "../../cli/recipe-file.ts";
import { recipeProblems } from "./recipe-problems.ts";

const problems = recipeProblems;

describe("recipe schema", () => {
  it("defaults reproduce the reference binary script (4/2/2 of 8, TP 4 / 2 / 2, m=3, lr 1e-5)", () => {
    const recipe = parseRecipe({});
    expect(recipe.method).toBe("binary");
    expect(recipe.cluster).toMatchObject({ nodes: 1, gpus_per_node: 8, actor_gpus: 4, rollout_gpus: 2, prm_gpus: 2, actor_tp: 4, rollout_tp: 2, prm_tp: 2 });
    expect(recipe.judge).toMatchObject({ votes: 3, temperature: 0.6, max_new_tokens: 4096, launch: "slime" });
    expect(recipe.training).toMatchObject({ batch_size: 16, lr: 1e-5, eps_clip: 0.2, eps_clip_high: 0.28, kl_coef: 0, use_kl_loss: true, save_interval: 5, keep_checkpoints: 3, stall_after_s: 1800 });
    expect(recipe.model).toMatchObject({ context_length: 32768, max_response_tokens: 8192 });
    expect(recipe.engine.slime.rotary_base).toBeUndefined();
    expect(recipe.derived.trainingBackend).toBe("megatron");
  });

  it("reports unknown keys and wrong types with their YAML path", () => {
    expect(problems({ cluster: { gpus: 8 } })).toEqual([expect.stringMatching(/^cluster\.gpus: unknown key/)]);
    expect(problems({ training: { lr: "fast" } })).toEqual([expect.stringMatching(/^training\.lr: must be a number above 0, got the text "fast"/)]);
    expect(problems({ training: { lr: Number.POSITIVE_INFINITY } })).toEqual([expect.stringMatching(/^training\.lr: must be a number above 0, got Infinity \(hint: /)]);
    expect(problems({ proxy: { port: 99999 } })).toEqual([expect.stringMatching(/^proxy\.port: must be a whole number from 1 to 65535, got 99999 \(hint: /)]);
  });

  it("a value out of range or of the wrong type says in plain words what is allowed, what the key is, and a --set that parses", () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ training: { batch_size: -4 } }, "training.batch_size: must be a whole number above 0, got -4", "training.batch_size is: Samples per optimizer step"],
      [{ training: { batch_size: "abc" } }, 'training.batch_size: must be a whole number above 0, got the text "abc"', "--set training.batch_size=16"],
      [{ training: { max_wait_s: -5 } }, "training.max_wait_s: must be a number of 0 or more, got -5", "--set training.max_wait_s=0"],
      [{ proxy: { port: 70000 } }, "proxy.port: must be a whole number from 1 to 65535, got 70000", "proxy.port is: Port of the proxy"],
      [{ training: { use_kl_loss: "maybe" } }, 'training.use_kl_loss: must be true or false, got the text "maybe"', "--set training.use_kl_loss=true"],
    ];
    for (const [raw, message, hint] of cases) {
      const [line] = problems(raw);
      expect(line).toContain(`${message} (hint: `);
      expect(line).toContain(hint);
      expect(line).not.toMatch(/Too small|Too big|expected number/);
      const suggested = /--set (\S+?)\)?$/.exec(line!.replace(/\)$/, ""))?.[1];
      expect(suggested, line).toBeDefined();
      const fixed = structuredClone(raw);
      applySet(fixed, suggested!);
      expect(problems(fixed), suggested).toEqual([]);
    }
  });

  it("a misspelt enum value gets did you mean, a --set that parses, and every allowed value", () => {
    const [line] = problems({ engine: { kind: "slme" } });
    expect(line).toMatch(/^engine\.kind: must be one of "slime", "external", "rehearsal", got the text "slme" \(hint: did you mean "slime"\? \(--set engine\.kind=slime\)/);
    expect(line).toContain("rehearsal: CPU stand-ins");
    expect(problems({ sink: { kind: "json" } })[0]).toContain('did you mean "jsonl"? (--set sink.kind=jsonl)');
    expect(problems({ method: "zzz" })[0]).toMatch(/^method: must be one of "binary", "opd", "combine", "hybrid", got the text "zzz" \(hint: method is: /);
  });

  it("opd.teacher trainer is refused only where there is a teacher (opd, combine) the trainer cannot run, not under method binary", () => {
    expect(problems({ method: "opd", opd: { teacher: "trainer" } })).toEqual([]);
    expect(problems({ method: "opd", opd: { teacher: "trainer" }, cluster: { actor_cp: 2 } })).toEqual([expect.stringMatching(/^opd\.teacher: the trainer cannot compute the teacher here: cluster\.actor_cp is 2/)]);
    expect(problems({ method: "combine", opd: { teacher: "trainer" }, cluster: { actor_cp: 2 } })).toHaveLength(1);
    expect(problems({ method: "binary", opd: { teacher: "trainer" }, cluster: { actor_cp: 2 } })).toEqual([]);
  });

  it("refuses empty names and folders (records.dir \"\" would make the working folder the run folder)", () => {
    const found = problems({ records: { dir: "" }, model: { path: "", served_name: "" } }).sort();
    expect(found.map((line) => line.replace(/ \(hint: .*/, ""))).toEqual(["model.path: must not be empty", "model.served_name: must not be empty", "records.dir: must not be empty"]);
  });

  const rules: [string, unknown, string][] = [
    ["external judge needs a URL", { judge: { launch: "external" } }, "judge.url:"],
    ["external engine needs a policy URL", { engine: { kind: "external" }, judge: { launch: "external", url: "http://j:1" } }, "engine.policy_url:"],
    ["external engine needs an external judge", { engine: { kind: "external", policy_url: "http://p:1" } }, "judge.launch:"],
    ["jsonl sink needs a path", { sink: { kind: "jsonl" } }, "sink.path:"],
    ["slime trains from the bridge, not a jsonl sink", { sink: { kind: "jsonl", path: "s.jsonl" } }, "sink.kind:"],
    ["eps_clip_high >= eps_clip", { training: { eps_clip: 0.3, eps_clip_high: 0.2 } }, "training.eps_clip_high:"],
    ["top-K needs opd (binary)", { method: "binary", opd: { topk: 50 } }, "opd.topk:"],
    ["top-K needs opd (combine)", { method: "combine", opd: { topk: 50 } }, "opd.topk:"],
    ["combine weights both 0", { method: "combine", combine: { w_rl: 0, w_opd: 0 } }, "combine:"],
    ["LoRA needs fsdp", { training: { backend: "megatron", lora: {} } }, "training.backend:"],
    ["fsdp trains binary only", { method: "opd", training: { lora: {} } }, "training.backend:"],
    ["kl_coef needs use_kl_loss", { training: { kl_coef: 0.02, use_kl_loss: false } }, "training.kl_coef:"],
    ["upstream slime has no LoRA", { engine: { slime: { flavor: "upstream" } }, judge: { launch: "standalone" }, training: { lora: {} } }, "training.lora: engine.slime.flavor upstream has no LoRA"],
    ["upstream slime has no FSDP backend", { engine: { slime: { flavor: "upstream" } }, judge: { launch: "standalone" }, training: { backend: "fsdp" } }, "training.backend: engine.slime.flavor upstream trains with Megatron only"],
    ["upstream slime has no top-K OPD", { method: "opd", opd: { topk: 50 }, engine: { slime: { flavor: "upstream" } }, judge: { launch: "standalone" } }, "opd.topk: engine.slime.flavor upstream hands only teacher_log_probs"],
    ["upstream slime has no --prm-* judge", { engine: { slime: { flavor: "upstream" } } }, "judge.launch: engine.slime.flavor upstream has no --prm-* options"],
    ["the fork's SGLang has no incremental streaming flag", { engine: { slime: { stream_output_flag: "--sglang-incremental-streaming-output" } } }, "engine.slime.stream_output_flag: engine.slime.flavor fork"],
    ["top-K OPD has no KL term", { method: "opd", opd: { topk: 50 }, training: { kl_coef: 0.02 } }, "training.kl_coef: training.kl_coef > 0 has no effect with top-K distillation"],
  ];
  for (const [name, raw, path] of rules) {
    it(`rule: ${name}`, () => {
      const found = problems(raw);
      expect(found.some((line) => line.startsWith(path)), found.join("\n")).toBe(true);
    });
  }

  it("the stream flag follows the flavour unless set; what upstream can run is not refused", () => {
    expect(parseRecipe({}).engine.slime.stream_output_flag).toBe("--sglang-stream-output");
    const upstream = { engine: { slime: { flavor: "upstream" } }, judge: { launch: "standalone" } };
    expect(parseRecipe(upstream).engine.slime.stream_output_flag).toBe("--sglang-incremental-streaming-output");
    expect(parseRecipe({ engine: { slime: { flavor: "upstream", stream_output_flag: "none" } }, judge: { launch: "standalone" } }).engine.slime.stream_output_flag).toBe("none");
    for (const method of ["binary", "opd", "combine"]) expect(problems({ ...upstream, method })).toEqual([]);
    expect(problems({ engine: { kind: "rehearsal", slime: { flavor: "upstream" } }, model: { path: "builtin:qwen3" } })).toEqual([]); // no slime runs
  });

  it("--set types values by the schema", () => {
    const raw: Record<string, unknown> = {};
    applySet(raw, "training.lr=2e-5");
    applySet(raw, "cluster.nodes=2");
    applySet(raw, "training.use_kl_loss=false");
    applySet(raw, "engine.slime.extra_args=[--foo, bar]");
    applySet(raw, "model.served_name=42");
    expect(raw).toEqual({ training: { lr: 2e-5, use_kl_loss: false }, cluster: { nodes: 2 }, engine: { slime: { extra_args: ["--foo", "bar"] } }, model: { served_name: "42" } });
    expect(() => applySet(raw, "cluster.gpus=8")).toThrow(OpenclawRlError);
    expect(problems({ cluster: { nodes: "two" } })).toEqual([expect.stringMatching(/^cluster\.nodes:/)]);
  });

  it("a --set that changes nothing (the file or the default has that value) is said, not refused", () => {
    const raw: Record<string, unknown> = { training: { batch_size: 4 } };
    expect(applySet(raw, "training.batch_size=4")).toBe("file");
    expect(applySet(raw, "training.batch_size=1")).toBe(null);
    expect(applySet(raw, "training.lr=1e-5")).toBe("default");
    expect(applySet(raw, "training.lr=2e-5")).toBe(null);
    const loaded = loadRecipe({ set: ["training.batch_size=4", "training.lr=0.00001", "training.batch_size=2"] });
    expect(loaded.recipe.training.batch_size).toBe(2);
    expect(loaded.unchanged).toEqual([
      `--set training.batch_size=4 changes nothing: ${path.relative(process.cwd(), loaded.file)} already sets it`,
      "--set training.lr=0.00001 changes nothing: it is the default",
    ]);
  });

  it("--set sets one entry of a free-form mapping (engine.slime.env) and still refuses unknown fixed keys", () => {
    const raw: Record<string, unknown> = { engine: { slime: { env: { CUDA_LAUNCH_BLOCKING: "1" } } } };
    applySet(raw, "engine.slime.env.NCCL_DEBUG=INFO");
    applySet(raw, "engine.slime.env.OMP_NUM_THREADS=8");
    expect(parseRecipe(raw).engine.slime.env).toEqual({ CUDA_LAUNCH_BLOCKING: "1", NCCL_DEBUG: "INFO", OMP_NUM_THREADS: "8" });
    expect(() => applySet(raw, "engine.slime.bogus=1")).toThrow(/unknown recipe key "engine\.slime\.bogus"/);
    expect(() => applySet(raw, "engine.slime.env.NCCL_DEBUG.level=1")).toThrow(/unknown recipe key/);
  });

  it("an unknown key's hint names the nearest key there is, each misspelt part corrected, and the reference command", () => {
    const hint = (assignment: string) => {
      try {
        applySet({}, assignment);
      } catch (error) {
        return (error as OpenclawRlError).hint;
      }
      return "no error";
    };
    expect(hint("training.lrr=1")).toBe('did you mean "training.lr"? every key: npx openclaw-rl recipe-reference (docs/recipe-reference.md)');
    expect(hint("trainig.batchsize=4")).toMatch(/^did you mean "training\.batch_size"\?/);
    expect(hint("engine.slim.env.NCCL_DEBUG=INFO")).toMatch(/^did you mean "engine\.slime\.env\.NCCL_DEBUG"\?/);
    expect(hint("foo=1")).toBe("every key: npx openclaw-rl recipe-reference (docs/recipe-reference.md)");
    expect(problems({ opd: { teachr: "trainer" } })).toEqual(['opd.teachr: unknown key opd.teachr (hint: did you mean "opd.teacher"? every key: npx openclaw-rl recipe-reference (docs/recipe-reference.md))']);
  });

  it("malformed YAML names the file, line and column, the line's text and a hint", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "recipe-yaml-")), "bad.yaml");
    writeFileSync(file, "name: x\nmethod: opd\n  model: 1\n");
    const lines = (() => {
      try {
        loadRecipe({ recipe: file });
      } catch (error) {
        return (error as OpenclawRlErrorList).errors.map((item) => item.toLine());
      }
      return [];
    })();
    expect(lines[0]!.startsWith(`${file}:2:9: malformed YAML: `)).toBe(true);
    expect(lines[0]).toContain('("method: opd") (hint: fix the YAML at that line');
  });

  it("an empty recipe file (or one of comments only) is refused by name, not read as the defaults' GPU recipe", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "recipe-empty-"));
    for (const [name, text] of [["empty.yaml", ""], ["comments.yaml", "# my recipe\n\n   \n"], ["null.yaml", "~\n"]] as const) {
      const file = path.join(folder, name);
      writeFileSync(file, text);
      expect(() => loadRecipe({ recipe: file }), name).toThrow(
        expect.objectContaining({ code: "RECIPE_INVALID", path: file, message: "empty recipe file: no keys, only comments or blank lines", hint: expect.stringContaining("leave out --recipe") }),
      );
    }
  });
});
