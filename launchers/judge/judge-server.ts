// The standalone judge: one `python3 -m sglang.launch_server` on the PRM GPUs (for upstream slime, which has no
// --prm-* flags), bound to loopback on the head (all interfaces on a worker node). Ignores slime and Ray.
import type { Placement, ProcessSpec } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { sglangServerProcess } from "../sglang-server-process.ts";

export function standaloneJudgeProcess(recipe: Recipe, placement: Placement): ProcessSpec {
  const slots = placement.engines.filter((engine) => engine.role === "prm");
  return sglangServerProcess(recipe, {
    name: "judge",
    role: "judge-server",
    modelPath: recipe.derived.judgePath,
    port: recipe.judge.port,
    node: slots[0]?.node ?? 0,
    gpus: slots.flatMap((slot) => slot.gpus),
    tp: recipe.cluster.prm_tp,
    dataParallel: slots.length,
  });
}

/** Where the orchestrator reaches the standalone judge. */
export function standaloneJudgeUrl(recipe: Recipe, placement: Placement): string {
  const node = placement.engines.find((engine) => engine.role === "prm")?.node ?? 0;
  const host = node === 0 ? "127.0.0.1" : `<address of node ${node}>`;
  return `http://${host}:${recipe.judge.port}`;
}
