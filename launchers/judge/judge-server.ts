// The standalone judge: one `python3 -m sglang.launch_server` on the PRM GPUs (for upstream slime, which has no
// --prm-* flags), bound to loopback on the head (all interfaces on a worker node). Ignores slime and Ray.
import type { Placement, ProcessSpec } from "../../contracts/plan.ts";
import { judgePath, type Recipe } from "../../contracts/recipe.ts";

export function standaloneJudgeProcess(recipe: Recipe, placement: Placement): ProcessSpec {
  const slots = placement.engines.filter((engine) => engine.role === "prm");
  const node = slots[0]?.node ?? 0;
  const gpus = slots.flatMap((slot) => slot.gpus);
  const dataParallel = slots.length;
  const host = node === 0 ? "127.0.0.1" : "0.0.0.0";
  return {
    name: "judge",
    role: "judge-server",
    port: recipe.judge.port,
    node,
    cwd: recipe.engine.slime.root,
    argv: [
      recipe.engine.slime.python, "-m", "sglang.launch_server",
      "--model-path", judgePath(recipe),
      "--host", host,
      "--port", String(recipe.judge.port),
      "--tp-size", String(recipe.cluster.prm_tp),
      ...(dataParallel > 1 ? ["--dp-size", String(dataParallel)] : []),
      "--mem-fraction-static", String(recipe.engine.slime.mem_fraction_static),
      "--context-length", String(recipe.model.context_length),
    ],
    env: { CUDA_VISIBLE_DEVICES: gpus.join(","), PYTHONUNBUFFERED: "1" },
  };
}

/** Where the orchestrator reaches the standalone judge. */
export function standaloneJudgeUrl(recipe: Recipe, placement: Placement): string {
  const node = placement.engines.find((engine) => engine.role === "prm")?.node ?? 0;
  const host = node === 0 ? "127.0.0.1" : `<address of node ${node}>`;
  return `http://${host}:${recipe.judge.port}`;
}
