// `openclaw-rl plan` and bad input: JSON shape with secrets masked, and exit status 2 with one line per problem
// naming the YAML path (no stack trace) for every kind of bad recipe. Two cases run as real processes, the rest
// through the same main() in this process (a child costs a second or two on a busy machine).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runCliInProcess } from "./cli-process.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "plan-cli-"));
/** A checkpoint folder for slime plans (plan reads no weights; doctor and start check the folder). */
const CHECKPOINT = "/models/Qwen3-4B-Thinking-2507";

function recipeFile(name: string, text: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, text);
  return file;
}

function expectBadInput(result: { exitCode: number; stderr: string }, ...fragments: string[]): void {
  expect(result.exitCode).toBe(2);
  for (const fragment of fragments) expect(result.stderr).toContain(fragment);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe("openclaw-rl plan (process)", () => {
  it("--json prints method, placement and every process with argv, env, cwd; secrets masked", async () => {
    const result = await runCli(["plan", "--json", "--recipe", "configs/qwen3-4b-combine.yaml", "--set", "wandb.enabled=true"], { env: { WANDB_API_KEY: "must-not-leak" } });
    expect(result.exitCode).toBe(0);
    const plan = JSON.parse(result.stdout) as {
      method: string;
      placement: { nodes: { actor: number[]; rollout: number[]; prm: number[] }[] };
      processes: { name: string; argv: string[]; env: Record<string, string>; cwd: string }[];
    };
    expect(plan.method).toBe("combine");
    expect(plan.placement.nodes[0]).toMatchObject({ actor: [0, 1, 2, 3], rollout: [4, 5], prm: [6, 7] });
    expect(plan.processes.map((process) => process.name)).toEqual(["ray-head", "slime-job"]);
    const [head, job] = plan.processes;
    expect(head!.env.OPENCLAW_RL_BRIDGE_TOKEN).toBe("***");
    expect(head!.env.WANDB_API_KEY).toBe("***");
    expect(job!.argv).toContain("--use-wandb");
    expect(job!.argv).toEqual(expect.arrayContaining(["--loss-type", "custom_loss", "--custom-loss-function-path", "openclaw_rl.losses.combine_loss_function"]));
    expect(job!.cwd).toBe("/opt/slime");
    expect(result.stdout).not.toContain("must-not-leak");
  });

  it("text form shows the placement, the processes and the missing model-args note", async () => {
    const result = await runCliInProcess(["plan", "--recipe", "configs/multinode-example.yaml"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("node 1: actor - | rollout 0-3 | prm 4-7 | idle -");
    expect(result.stdout).toContain("process ray-worker-1 (node 1");
    expect(result.stdout).toContain("model-args file /opt/slime/scripts/models/qwen3-4B.sh not found");
  });

  it("--method hybrid on the default recipe's slime: the hybrid's loss, its custom-config keys and where the teacher runs", async () => {
    const result = await runCliInProcess(["plan", "--method", "hybrid", "--set", "engine.kind=slime", "--set", `model.path=${CHECKPOINT}`, "--set", `judge.path=${CHECKPOINT}`]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("--custom-loss-function-path openclaw_rl.losses.hybrid_loss_function");
    expect(result.stdout).toContain("openclaw_rl_hybrid_selection: sequence_optimal");
    expect(result.stdout).toContain(`teacher: in the trainer, the frozen ${CHECKPOINT} (slime's --ref-load) gives top-2 rows for each of up to 3 hint candidates per turn`); // configs/rehearsal.yaml sets hybrid.topk 2
    const rehearsal = await runCliInProcess(["plan", "--method", "hybrid"]);
    expect(rehearsal.exitCode).toBe(0);
    expect(rehearsal.stdout).toContain("--method hybrid");
    expect(rehearsal.stdout).toContain("--hybrid-selection sequence_optimal --hybrid-subset student --hybrid-topk 2 --hybrid-clip 1 --w-rl 1 --w-opd 1 --teacher-temperature");
    expect(rehearsal.stdout).toContain("--hint-variants");
  });

  it("slime on the default recipe's stand-in model → exit 2 naming model.path and judge.path and what to set", async () => {
    const refused = await runCliInProcess(["plan", "--set", "engine.kind=slime"]);
    expectBadInput(refused, "error: model.path: builtin:qwen3 is openclaw-rl's stand-in", "slime cannot load it", "error: judge.path: builtin:qwen3");
    expect(refused.stdout).toBe("");
    // one hint, printed once, whose --sets fix both keys when pasted as they are
    expect(refused.stderr.match(/\(hint: /g)).toHaveLength(1);
    const sets = /add ((?:--set \S+ ?)+) with the folder/.exec(refused.stderr)?.[1]?.trim().split(" ");
    expect(sets).toEqual(["--set", "model.path=/path/to/Qwen3-4B", "--set", "judge.path=/path/to/Qwen3-4B"]);
    const pasted = await runCliInProcess(["plan", "--set", "engine.kind=slime", ...sets!]);
    expect(pasted.exitCode, pasted.stderr).toBe(0);
    // the hint's command, pasted with a folder, plans; a judge outside slime needs only model.path
    const planned = await runCliInProcess(["plan", "--set", "engine.kind=slime", "--set", `model.path=${CHECKPOINT}`, "--set", `judge.path=${CHECKPOINT}`]);
    expect(planned.exitCode, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(`--hf-checkpoint ${CHECKPOINT}`);
    const external = await runCliInProcess(["plan", "--set", "engine.kind=slime", "--set", "judge.launch=external", "--set", "judge.url=http://127.0.0.1:9/v1", "--set", `model.path=${CHECKPOINT}`]);
    expect(external.exitCode, external.stderr).toBe(0);
    expectBadInput(await runCliInProcess(["plan", "--recipe", "configs/qwen3-4b-combine.yaml", "--set", "training.ref_load=builtin:qwen3"]), "error: training.ref_load: builtin:qwen3");
  });

  it("a --set the rehearsal recipe already has is noted on stderr; a slime-only key gets a plan note; both exit 0", async () => {
    const result = await runCliInProcess(["plan", "--set", "training.batch_size=4", "--set", "cluster.actor_tp=2"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toBe("note: --set training.batch_size=4 changes nothing: configs/rehearsal.yaml already sets it\n");
    expect(result.stdout).toContain("unused in rehearsal (slime's GPU layout and learning rate; the stand-ins run on the CPU): cluster.actor_tp 2 (default 4)");
  });

  it("unknown key → exit 2 naming the path", async () => {
    expectBadInput(await runCli(["plan", "--recipe", recipeFile("unknown.yaml", "cluster:\n  gpus: 8\n")]), "cluster.gpus", "unknown key");
  });

  it("wrong type (file and --set) → exit 2, one line per problem", async () => {
    const result = await runCliInProcess(["plan", "--recipe", recipeFile("types.yaml", "training:\n  lr: fast\n"), "--set", "cluster.nodes=two"]);
    expectBadInput(result, "training.lr: must be a number above 0, got the text \"fast\"", "cluster.nodes: must be a whole number above 0, got the text \"two\"");
    expect(result.stderr.trim().split("\n")).toHaveLength(2);
  });

  it("missing file, malformed YAML and an empty file → exit 2", async () => {
    expectBadInput(await runCliInProcess(["plan", "--recipe", path.join(scratch, "nope.yaml")]), "recipe file not found");
    expectBadInput(await runCliInProcess(["plan", "--recipe", recipeFile("broken.yaml", "cluster: [1, 2\n")]), "malformed YAML");
    expectBadInput(await runCliInProcess(["plan", "--recipe", recipeFile("empty.yaml", "# nothing yet\n")]), `${path.join(scratch, "empty.yaml")}: empty recipe file`, "copy configs/rehearsal.yaml");
  });

  it("placement errors → exit 2 with their YAML paths", async () => {
    expectBadInput(await runCliInProcess(["plan", "--recipe", "configs/qwen3-4b-binary.yaml", "--set", "cluster.prm_gpus=4"]), "cluster.prm_gpus: actor 4 + rollout 2 + prm 4 = 10 GPUs asked");
    expectBadInput(await runCliInProcess(["plan", "--recipe", "configs/qwen3-4b-binary.yaml", "--set", "cluster.rollout_tp=4"]), "cluster.rollout_tp: rollout_tp 4 does not divide");
    expectBadInput(await runCliInProcess(["plan", "--recipe", "configs/multinode-example.yaml", "--set", "cluster.actor_gpus=4", "--set", "cluster.rollout_gpus=8"]), "cluster.rollout_gpus", "spans nodes");
  });

  it("every shipped recipe on upstream slime (judge standalone) plans, or is refused naming what upstream lacks", async () => {
    const refused: Record<string, string[]> = {
      "qwen3-4b-binary-lora": ["training.lora: engine.slime.flavor upstream has no LoRA"],
      "qwen3-4b-opd-topk": ["opd.topk: engine.slime.flavor upstream hands only teacher_log_probs"],
      "qwen3-4b-opd-lora": ["opd.topk: engine.slime.flavor upstream hands only teacher_log_probs"],
    };
    const names = ["qwen3-4b-binary", "qwen3-4b-opd", "qwen3-4b-opd-topk", "qwen3-4b-combine", "qwen3-4b-hybrid", "qwen3-4b-binary-lora", "qwen3-4b-opd-lora", "qwen3-4b-combine-lora", "multinode-example", "rehearsal"];
    for (const name of names) {
      const result = await runCliInProcess(["plan", "--recipe", `configs/${name}.yaml`, "--set", "engine.slime.flavor=upstream", "--set", "judge.launch=standalone"]);
      if (refused[name]) expectBadInput(result, ...refused[name]);
      else {
        expect(`${name}: ${result.exitCode} ${result.stderr.trim()}`).toBe(`${name}: 0 `);
        if (name !== "rehearsal") expect(result.stdout).toContain("engine.slime.flavor upstream");
      }
    }
    expectBadInput(await runCliInProcess(["plan", "--recipe", "configs/qwen3-4b-binary.yaml", "--set", "engine.slime.flavor=upstream"]), "judge.launch: engine.slime.flavor upstream has no --prm-* options", "use judge.launch: standalone");
  });

  it("every shipped recipe plans without error", async () => {
    const names = ["qwen3-4b-binary", "qwen3-4b-opd", "qwen3-4b-opd-topk", "qwen3-4b-combine", "qwen3-4b-hybrid", "qwen3-4b-binary-lora", "qwen3-4b-opd-lora", "qwen3-4b-combine-lora", "multinode-example", "rehearsal"];
    const results = [];
    for (const name of names) results.push(await runCliInProcess(["plan", "--json", "--recipe", `configs/${name}.yaml`]));
    expect(results.map((result, index) => `${names[index]}: ${result.exitCode} ${result.stderr.trim()}`)).toEqual(names.map((name) => `${name}: 0 `));
  });
});
