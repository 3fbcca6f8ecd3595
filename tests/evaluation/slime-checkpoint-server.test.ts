// `openclaw-rl eval --checkpoint` with slime, as a plan only (no GPU and no SGLang here): a converted Hugging Face
// folder served by `sglang.launch_server` on rollout_tp free GPUs of the head node; refused by name when the
// checkpoint is not converted (with the convert-checkpoint command), when no GPU is free, and with engine.kind external;
// the base weights served from model.path, and a live eval with no base refused when they cannot be served.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { PlanContext } from "../../contracts/plan.ts";
import { recipeSchema, recipeSettingsOf } from "../../contracts/recipe.ts";
import { planCheckpointServing } from "../../launchers/evaluation/checkpoint-serving.ts";
import { convertedFolder } from "../../launchers/evaluation/slime-checkpoint-server.ts";
import { runCliInProcess } from "../cli/cli-process.ts";

function runFolder(): { runDir: string; context: PlanContext } {
  const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-slime-checkpoint-"));
  mkdirSync(path.join(runDir, "checkpoints", "iter_0000005"), { recursive: true }); // a Megatron checkpoint, not converted
  const hf = convertedFolder(runDir, 4);
  mkdirSync(hf, { recursive: true });
  writeFileSync(path.join(hf, "config.json"), "{}");
  writeFileSync(path.join(hf, "model.safetensors.index.json"), JSON.stringify({ weight_map: { "lm_head.weight": "model-00001-of-00001.safetensors" } }));
  writeFileSync(path.join(hf, "model-00001-of-00001.safetensors"), "");
  return { runDir, context: { packageRoot: "/pkg", runDir, bridgeUrl: "", bridgeToken: "", environment: {} } };
}

const slime = (cluster: Record<string, unknown> = {}) =>
  recipeSchema.parse({ engine: { kind: "slime", slime: { root: "/opt/slime", python: "/opt/venv/bin/python" } }, model: { path: "/models/Qwen3-4B", served_name: "qwen3-4b" }, cluster });

describe("a slime checkpoint served for evaluation (plan only)", () => {
  it("serves a converted iteration with sglang.launch_server on rollout_tp GPUs, as version iteration + 2", () => {
    const { runDir, context } = runFolder();
    const recipe = slime();
    const serving = planCheckpointServing(recipe, { checkpoint: "iter_0000004", port: 40123, context, gpus: { startRunning: false } });
    expect(serving).toMatchObject({ version: "6", checkpoint: convertedFolder(runDir, 4), url: "http://127.0.0.1:40123", readyUrl: "http://127.0.0.1:40123/health_generate" });
    expect(serving.spec).toMatchObject({ name: "checkpoint-policy-v6", role: "checkpoint-server", port: 40123, node: 0, cwd: "/opt/slime", env: { CUDA_VISIBLE_DEVICES: "0,1", PYTHONUNBUFFERED: "1" } });
    expect(serving.spec.argv).toEqual([
      "/opt/venv/bin/python", "-m", "sglang.launch_server",
      "--model-path", convertedFolder(runDir, 4),
      "--host", "127.0.0.1",
      "--port", "40123",
      "--tp-size", "2",
      "--mem-fraction-static", String(recipe.engine.slime.mem_fraction_static),
      "--context-length", String(recipe.model.context_length),
      "--served-model-name", "qwen3-4b",
    ]);
    // the number, and a converted folder passed by path, name the same checkpoint
    expect(planCheckpointServing(recipe, { checkpoint: "4", port: 1, context }).checkpoint).toBe(convertedFolder(runDir, 4));
    expect(planCheckpointServing(recipe, { checkpoint: convertedFolder(runDir, 4), port: 1, context }).version).toBe("6");
  });

  it("beside a running start it takes only the placement's idle GPUs, and refuses by name when there are none", () => {
    const { context } = runFolder();
    const roomy = planCheckpointServing(slime({ gpus_per_node: 10 }), { checkpoint: "4", port: 1, context, gpus: { startRunning: true } });
    expect(roomy.spec.env.CUDA_VISIBLE_DEVICES).toBe("8,9");
    expect(() => planCheckpointServing(slime(), { checkpoint: "4", port: 1, context, gpus: { startRunning: true } })).toThrow(
      "no GPU is free for the checkpoint's SGLang server: it needs cluster.rollout_tp = 2 on the head node, and the running start holds 8 of its 8 GPUs (0 idle)",
    );
    expect(() => planCheckpointServing(slime({ gpus_per_node: 9 }), { checkpoint: "4", port: 1, context, gpus: { startRunning: true } })).toThrow(/holds 8 of its 9 GPUs \(1 idle\)/);
  });

  it("refuses a Megatron checkpoint that is not converted, saying the convert-checkpoint command", () => {
    const { runDir, context } = runFolder();
    const megatron = path.join(runDir, "checkpoints", "iter_0000005");
    for (const checkpoint of ["5", megatron]) {
      let refusal: unknown;
      try {
        planCheckpointServing(slime(), { checkpoint, port: 1, context });
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toMatchObject({ code: "EVALUATION_REFUSED", path: "--checkpoint", message: expect.stringMatching(/^iteration 5 is not converted to Hugging Face yet \(.*has no config\.json\): SGLang loads only a Hugging Face folder$/) });
      expect((refusal as Error & { hint: string }).hint).toContain(`convert-checkpoint --run ${runDir} --iteration 5 --out ${convertedFolder(runDir, 5)}`);
    }
    expect(() => planCheckpointServing(slime(), { checkpoint: path.join(runDir, "model-final"), port: 1, context })).toThrow(/its name says no checkpoint iteration/);
    expect(() => planCheckpointServing(slime(), { checkpoint: "7", port: 1, context })).toThrow(
      `no checkpoint iteration 7: neither ${path.join(runDir, "checkpoints", "iter_0000007")} nor its converted folder ${convertedFolder(runDir, 7)}`,
    );
  });

  it("serves the base weights (model.path) as version 0; a run resumed from training.load_dir is refused by name", () => {
    const { context } = runFolder();
    const serving = planCheckpointServing(slime(), { checkpoint: "base", port: 40124, context, gpus: { startRunning: false } });
    expect(serving).toMatchObject({ version: "0", checkpoint: "/models/Qwen3-4B", spec: { name: "checkpoint-policy-v0", role: "checkpoint-server" } });
    expect(serving.spec.argv.slice(3, 5)).toEqual(["--model-path", "/models/Qwen3-4B"]);
    const resumed = recipeSchema.parse({ ...recipeSettingsOf(slime()), training: { ...slime().training, load_dir: "/ckpt/run-a" } });
    expect(() => planCheckpointServing(resumed, { checkpoint: "base", port: 1, context })).toThrow("the run's base weights are training.load_dir's checkpoint (/ckpt/run-a), which SGLang cannot load");
  });

  it("beside a running start that holds every GPU, a live eval with no base refuses and names the command that records the base", async () => {
    const { runDir } = runFolder();
    const status = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ run_id: "run-s", weight_version: "7", endpoints: { proxy: "http://127.0.0.1:9/v1" } }));
    });
    await new Promise<void>((resolve) => status.listen(0, "127.0.0.1", resolve));
    try {
      writeFileSync(path.join(runDir, "admin.json"), JSON.stringify({ url: `http://127.0.0.1:${(status.address() as AddressInfo).port}` }));
      writeFileSync(path.join(runDir, "admin-token"), "token\n");
      const cli = await runCliInProcess(["eval", "--run", runDir, "--judge-url", "http://127.0.0.1:9", "--set", "engine.kind=slime", "--set", `records.dir=${runDir}`]);
      expect(cli.exitCode).toBe(2);
      expect(cli.stderr).toContain("no base evaluated in run run-s yet: evaluating the base weights (v0) first, then v7 against them");
      expect(cli.stderr).toContain("no base is evaluated for this run yet, and the base weights cannot be served beside it now: no GPU is free for the checkpoint's SGLang server");
      expect(cli.stderr).toMatch(new RegExp(`openclaw-rl eval --run ${runDir} --checkpoint base\``));
      expect(existsSync(path.join(runDir, "evaluations.jsonl"))).toBe(false);
    } finally {
      await new Promise((resolve) => status.close(resolve));
    }
  });

  it("refuses engine.kind external (no engine to load it into); the CLI prints the slime refusal, and --plan the server", async () => {
    const { runDir, context } = runFolder();
    const external = recipeSchema.parse({ engine: { kind: "external", policy_url: "http://127.0.0.1:1", judge_url: "http://127.0.0.1:2" } });
    expect(() => planCheckpointServing(external, { checkpoint: "4", port: 1, context })).toThrow(/engine.kind external: openclaw-rl starts no engine/);
    const cli = await runCliInProcess(["eval", "--run", runDir, "--judge-url", "http://127.0.0.1:9", "--set", "engine.kind=slime", "--set", `records.dir=${runDir}`, "--checkpoint", "5"]);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/iteration 5 is not converted to Hugging Face yet/);
    expect(cli.stderr).toContain(`convert-checkpoint --run ${runDir} --iteration 5`);
    const plan = await runCliInProcess(["eval", "--run", runDir, "--set", "engine.kind=slime", "--set", `records.dir=${runDir}`, "--checkpoint", "4", "--plan"]);
    expect(plan.exitCode).toBe(0);
    expect(plan.stdout).toContain("version     v6\n");
    expect(plan.stdout).toContain(`-m sglang.launch_server --model-path ${convertedFolder(runDir, 4)} --host 127.0.0.1 --port `);
    expect(plan.stdout).toContain("env         CUDA_VISIBLE_DEVICES=0,1 PYTHONUNBUFFERED=1");
    const bare = await runCliInProcess(["eval", "--run", runDir, "--plan"]);
    expect(bare.exitCode).toBe(2);
    expect(bare.stderr).toContain("--plan shows how a checkpoint is served: pass --checkpoint too");
  });
});
