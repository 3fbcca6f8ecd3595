// The Ray processes of a slime run: `ray start --head` on node 0 and the join command of every worker node, each
// with the environment Ray's workers inherit (secrets included, never on argv). Ignores the job and slime flags.
import type { Placement, ProcessSpec } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";

/** Ray's health settings of the reference scripts: tolerate slow nodes while engines load. */
const RAY_HEALTH_ENV = {
  RAY_health_check_failure_threshold: "20",
  RAY_health_check_period_ms: "5000",
  RAY_health_check_timeout_ms: "30000",
  RAY_num_heartbeats_timeout: "60",
};

export interface NodeEnvironment {
  /** Variables every node's Ray processes (and so slime's driver, actors and engines) inherit. */
  shared: Record<string, string>;
  /** Keys of `shared` whose values are secrets. */
  secretKeys: string[];
}

/**
 * The GPUs Ray manages on a node: everything but a standalone judge's GPUs and idle ones. They are a prefix
 * 0..m-1 of the node's ids (slices are packed in order actor, rollout, prm, idle), so CUDA_VISIBLE_DEVICES keeps
 * ids unchanged and Ray cannot put a bundle on a GPU the plan gave to someone else.
 */
export function rayGpus(recipe: Recipe, placement: Placement, node: number): number[] {
  const slot = placement.nodes[node]!;
  const judgeInRay = recipe.judge.launch === "slime";
  return [...slot.actor, ...slot.rollout, ...(judgeInRay ? slot.prm : [])].sort((left, right) => left - right);
}

function gpuEnvironment(recipe: Recipe, placement: Placement, node: number): Record<string, string> {
  const gpus = rayGpus(recipe, placement, node);
  return gpus.length === recipe.cluster.gpus_per_node ? {} : { CUDA_VISIBLE_DEVICES: gpus.join(",") };
}

export function rayHeadProcess(recipe: Recipe, placement: Placement, environment: NodeEnvironment): ProcessSpec {
  const cluster = recipe.cluster;
  return {
    name: "ray-head",
    role: "ray-head",
    node: 0,
    cwd: recipe.engine.slime.root,
    argv: [
      recipe.engine.slime.ray, "start", "--head", "--block",
      "--node-ip-address", cluster.head_address,
      "--port", String(cluster.ray_port),
      "--num-gpus", String(rayGpus(recipe, placement, 0).length),
      "--disable-usage-stats",
      "--dashboard-host", "127.0.0.1",
      "--dashboard-port", String(cluster.dashboard_port),
    ],
    // SLIME_HOST_IP: slime's routers bind this address (else the LAN address), so the proxy reaches them at the head's.
    env: { ...RAY_HEALTH_ENV, ...noProxy(recipe), SLIME_HOST_IP: cluster.head_address, ...gpuEnvironment(recipe, placement, 0), ...environment.shared },
    secretEnv: environment.secretKeys,
  };
}

/** Printed for `openclaw-rl join` on each worker node; they run there, not here. */
export function rayWorkerProcesses(recipe: Recipe, placement: Placement, environment: NodeEnvironment): ProcessSpec[] {
  const cluster = recipe.cluster;
  return placement.nodes.slice(1).map(({ node }) => ({
    name: `ray-worker-${node}`,
    role: "ray-worker" as const,
    node,
    cwd: recipe.engine.slime.root,
    argv: [
      recipe.engine.slime.ray, "start", "--block",
      "--address", `${cluster.head_address}:${cluster.ray_port}`,
      "--num-gpus", String(rayGpus(recipe, placement, node).length),
      "--disable-usage-stats",
    ],
    env: { ...RAY_HEALTH_ENV, ...noProxy(recipe), ...gpuEnvironment(recipe, placement, node), ...environment.shared },
    secretEnv: environment.secretKeys,
  }));
}

/** HTTP clients (ray CLI, slime's router checks) must not send loopback or head traffic through a proxy. */
export function noProxy(recipe: Recipe): Record<string, string> {
  const hosts = ["127.0.0.1", "localhost", recipe.cluster.head_address];
  return { no_proxy: [...new Set(hosts)].join(",") };
}
