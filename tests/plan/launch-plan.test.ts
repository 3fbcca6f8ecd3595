// The slime launch plan beyond the golden files: the standalone judge and the GPUs Ray may use, secrets through
// the environment only, model-args sourcing (missing file, --rotary-base stated once), other engines.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { PlanContext } from "../../contracts/plan.ts";
import { parseRecipe } from "../../cli/recipe-file.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";
import { readModelArgs, withRotaryBase } from "../../launchers/slime/model-args.ts";
import { GOLDEN_CONTEXT, MODEL_ARGS_FIXTURE } from "../golden/golden-plan.ts";

const context: PlanContext = { ...GOLDEN_CONTEXT, environment: { WANDB_API_KEY: "wandb-secret" } };

function processNamed(plan: Awaited<ReturnType<typeof buildLaunchPlan>>, name: string) {
  const found = plan.processes.find((process) => process.name === name);
  if (!found) throw new Error(`no process ${name} in ${plan.processes.map((process) => process.name).join(", ")}`);
  return found;
}

describe("slime launch plan", () => {
  it("standalone judge: sglang.launch_server on the PRM GPUs, no --prm-* flags, Ray kept off those GPUs", async () => {
    const recipe = parseRecipe({ judge: { launch: "standalone", port: 31500 }, engine: { slime: { model_args: MODEL_ARGS_FIXTURE } } });
    const plan = await buildLaunchPlan(recipe, context);
    const judge = processNamed(plan, "judge");
    expect(judge.argv.slice(0, 3)).toEqual(["python3", "-m", "sglang.launch_server"]);
    expect(judge.argv).toEqual(expect.arrayContaining(["--port", "31500", "--tp-size", "2", "--host", "127.0.0.1"]));
    expect(judge.env.CUDA_VISIBLE_DEVICES).toBe("6,7");
    const head = processNamed(plan, "ray-head");
    expect(head.env.CUDA_VISIBLE_DEVICES).toBe("0,1,2,3,4,5");
    expect(head.argv[head.argv.indexOf("--num-gpus") + 1]).toBe("6");
    expect(processNamed(plan, "slime-job").argv.some((value) => value.startsWith("--prm-"))).toBe(false);
  });

  it("a standalone judge over several engines runs one server with data parallel", async () => {
    const recipe = parseRecipe({ cluster: { actor_gpus: 2, rollout_gpus: 2, prm_gpus: 4, actor_tp: 2 }, judge: { launch: "standalone" }, engine: { slime: { model_args: MODEL_ARGS_FIXTURE } } });
    const judge = processNamed(await buildLaunchPlan(recipe, context), "judge");
    expect(judge.argv).toEqual(expect.arrayContaining(["--tp-size", "2", "--dp-size", "2"]));
    expect(judge.env.CUDA_VISIBLE_DEVICES).toBe("4,5,6,7");
  });

  it("top-K OPD passes no KL flags even with use_kl_loss (no reference model loaded for a loss without a KL term)", async () => {
    const recipe = parseRecipe({ method: "opd", opd: { topk: 50 }, training: { use_kl_loss: true }, engine: { slime: { model_args: MODEL_ARGS_FIXTURE } } });
    const argv = processNamed(await buildLaunchPlan(recipe, context), "slime-job").argv;
    expect(argv).toEqual(expect.arrayContaining(["--disable-compute-advantages-and-returns", "--custom-loss-function-path", "openclaw_rl.losses.topk_distillation_loss_function"]));
    for (const flag of ["--use-kl-loss", "--kl-loss-coef", "--kl-loss-type"]) expect(argv).not.toContain(flag);
    const tokenLevel = processNamed(await buildLaunchPlan(parseRecipe({ method: "opd", training: { use_kl_loss: true }, engine: { slime: { model_args: MODEL_ARGS_FIXTURE } } }), context), "slime-job").argv;
    expect(tokenLevel).toEqual(expect.arrayContaining(["--use-kl-loss", "--kl-loss-coef", "0"]));
  });

  it("W&B: flags on argv, the key only in the Ray environment, marked secret", async () => {
    const recipe = parseRecipe({ wandb: { enabled: true, group: "g" }, engine: { slime: { model_args: MODEL_ARGS_FIXTURE } } });
    const plan = await buildLaunchPlan(recipe, context);
    const job = processNamed(plan, "slime-job");
    expect(job.argv).toEqual(expect.arrayContaining(["--use-wandb", "--wandb-project", "openclaw_rl", "--wandb-group", "g"]));
    for (const process of plan.processes) expect(process.argv.join(" ")).not.toContain("wandb-secret");
    const head = processNamed(plan, "ray-head");
    expect(head.env.WANDB_API_KEY).toBe("wandb-secret");
    expect(head.secretEnv).toEqual(expect.arrayContaining(["WANDB_API_KEY", "OPENCLAW_RL_BRIDGE_TOKEN"]));
    const runtimeEnv = JSON.parse(job.argv[job.argv.indexOf("--runtime-env-json") + 1]!) as { env_vars: Record<string, string> };
    expect(runtimeEnv.env_vars).toMatchObject({ OPENCLAW_RL_BRIDGE: "http://127.0.0.1:40000", PYTHONPATH: "/opt/Megatron-LM:/opt/openclaw-rl/native:/opt/slime" });
  });

  it("W&B enabled without a key: a note, no key", async () => {
    const recipe = parseRecipe({ wandb: { enabled: true }, engine: { slime: { model_args: MODEL_ARGS_FIXTURE } } });
    const plan = await buildLaunchPlan(recipe, { ...context, environment: {} });
    expect(plan.notes.join("\n")).toContain("$WANDB_API_KEY is not set");
    expect(processNamed(plan, "ray-head").env).not.toHaveProperty("WANDB_API_KEY");
  });

  it("a missing model-args file is a note for plan and an error for start", async () => {
    const recipe = parseRecipe({ engine: { slime: { root: "/nonexistent/slime" } } });
    const plan = await buildLaunchPlan(recipe, context);
    expect(plan.notes.join("\n")).toMatch(/model-args file \/nonexistent\/slime\/scripts\/models\/qwen3-4B\.sh not found/);
    expect(processNamed(plan, "slime-job").argv).not.toContain("--num-layers");
    await expect(buildLaunchPlan(recipe, context, { strict: true })).rejects.toThrow(OpenclawRlError);
  });

  it("training.load_dir without a checkpoint: a note for plan and an error for start; a real checkpoint passes", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "load-dir-"));
    const recipe = parseRecipe({ training: { load_dir: empty }, engine: { slime: { model_args: MODEL_ARGS_FIXTURE } } });
    const plan = await buildLaunchPlan(recipe, context);
    expect(plan.notes.join("\n")).toContain(`training.load_dir ${empty} holds no checkpoint slime can resume from (no latest_checkpointed_iteration.txt`);
    await expect(buildLaunchPlan(recipe, context, { strict: true })).rejects.toMatchObject({ path: "training.load_dir" });
    mkdirSync(path.join(empty, "iter_0000099"));
    writeFileSync(path.join(empty, "latest_checkpointed_iteration.txt"), "99");
    const loadable = await buildLaunchPlan(recipe, context, { strict: true });
    expect(loadable.notes.join("\n")).not.toContain("training.load_dir");
    expect(processNamed(loadable, "slime-job").argv).toEqual(expect.arrayContaining(["--load", empty]));
  });

  it("model args: sourced through bash, --rotary-base replaced in place or appended", async () => {
    const found = await readModelArgs(parseRecipe({ engine: { slime: { model_args: MODEL_ARGS_FIXTURE, rotary_base: 5000000 } } }));
    expect(found.kind).toBe("found");
    const args = found.kind === "found" ? found.args : [];
    expect(args.filter((value) => value === "--rotary-base")).toHaveLength(1);
    expect(args[args.indexOf("--rotary-base") + 1]).toBe("5000000");
    expect(args[args.indexOf("--normalization") + 1]).toBe("RMSNorm");
    expect(withRotaryBase(["--swiglu"], 10)).toEqual(["--swiglu", "--rotary-base", "10"]);
    expect(withRotaryBase(["--swiglu"], undefined)).toEqual(["--swiglu"]);
  });

  it("a model-args file without MODEL_ARGS is an error naming engine.slime.model_args", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "model-args-"));
    const file = path.join(folder, "empty.sh");
    writeFileSync(file, "OTHER=(--x)\n");
    await expect(readModelArgs(parseRecipe({ engine: { slime: { model_args: file } } }))).rejects.toMatchObject({ path: "engine.slime.model_args" });
  });

  it("the custom-config file carries the combine weights, top-K and where the teacher runs, once", async () => {
    const recipe = parseRecipe({ method: "combine", combine: { w_rl: 0.5, w_opd: 2 }, engine: { slime: { model_args: MODEL_ARGS_FIXTURE } } });
    const plan = await buildLaunchPlan(recipe, context);
    expect(plan.files).toEqual([{ path: "/runs/golden/slime-custom-config.yaml", content: "openclaw_rl_w_rl: 0.5\nopenclaw_rl_w_opd: 2\nopenclaw_rl_topk: 0\nopenclaw_rl_teacher: trainer\n" }]);
    expect(plan.processes.find((process) => process.name === "slime-job")?.argv.join(" ")).toContain("--custom-megatron-init-path openclaw_rl.trainer_hooks.install");
    expect(plan.notes.at(-1)).toMatch(/^teacher: one forward in the trainer per hinted turn of .* \(slime's --ref-load\)/);
    const everything = JSON.stringify(plan.processes);
    expect(everything).not.toContain("OPENCLAW_COMBINE_W");
  });
});

describe("other engines", () => {
  it("external: nothing to start", async () => {
    const recipe = parseRecipe({ engine: { kind: "external", policy_url: "http://p:1" }, judge: { launch: "external", url: "http://j:2" } });
    const plan = await buildLaunchPlan(recipe, context);
    expect(plan).toMatchObject({ engine: "external", placement: null, processes: [] });
  });

  it("rehearsal: the stand-in processes from rehearsal/, labelled as stand-ins", async () => {
    const recipe = parseRecipe({ engine: { kind: "rehearsal" }, model: { path: "builtin:qwen3" } });
    const plan = await buildLaunchPlan(recipe, context);
    expect(plan).toMatchObject({ engine: "rehearsal", placement: null });
    expect(plan.processes.length).toBeGreaterThan(0);
    expect(plan.notes.join("\n")).toContain("stand-in");
    expect(plan.notes.join("\n")).not.toContain("unused in rehearsal");
  });

  it("rehearsal: a note (not an error) names the slime-only keys set away from their defaults", async () => {
    const recipe = parseRecipe({ engine: { kind: "rehearsal" }, model: { path: "builtin:qwen3" }, training: { batch_size: 3, lr: 2e-5 }, cluster: { actor_tp: 2, nodes: 2, head_address: "10.0.0.1" } });
    const notes = (await buildLaunchPlan(recipe, context)).notes.filter((note) => note.startsWith("unused in rehearsal"));
    expect(notes).toEqual([expect.stringMatching(/: cluster\.actor_tp 2 \(default 4\), training\.lr 0\.00002 \(the stand-in trainer steps at 0\.5\)$/)]);
    // the bridge listens on cluster.head_address when cluster.nodes > 1, on any engine: those are not called unused
    expect(notes[0]).not.toMatch(/cluster\.nodes|head_address/);
  });
});
