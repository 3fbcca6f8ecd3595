// One `python -m sglang.launch_server` as a process spec: the model folder, loopback on the head (all interfaces on a
// worker node), tp/dp, memory fraction, context length and the GPUs it sees. Shared by the standalone judge and the
// checkpoint server of `openclaw-rl eval --checkpoint`; ignores why the server runs.
import type { ProcessSpec } from "../contracts/plan.ts";
import type { Recipe } from "../contracts/recipe.ts";

export interface SglangServer {
  name: string;
  role: ProcessSpec["role"];
  modelPath: string;
  port: number;
  node: number;
  gpus: number[];
  tp: number;
  dataParallel: number;
  extraArgs?: string[];
}

export function sglangServerProcess(recipe: Recipe, server: SglangServer): ProcessSpec {
  const host = server.node === 0 ? "127.0.0.1" : "0.0.0.0";
  return {
    name: server.name,
    role: server.role,
    port: server.port,
    node: server.node,
    cwd: recipe.engine.slime.root,
    argv: [
      recipe.engine.slime.python, "-m", "sglang.launch_server",
      "--model-path", server.modelPath,
      "--host", host,
      "--port", String(server.port),
      "--tp-size", String(server.tp),
      ...(server.dataParallel > 1 ? ["--dp-size", String(server.dataParallel)] : []),
      "--mem-fraction-static", String(recipe.engine.slime.mem_fraction_static),
      "--context-length", String(recipe.model.context_length),
      ...(server.extraArgs ?? []),
    ],
    env: { CUDA_VISIBLE_DEVICES: server.gpus.join(","), PYTHONUNBUFFERED: "1" },
  };
}
