// GPU placement: which GPU ids of which node the trainer, the policy engines and the judge get, and the checks
// that make slime's own packing land exactly there. Ignores processes and argv (launchers/slime does those).
import { OpenclawRlError, OpenclawRlErrorList } from "../contracts/errors.ts";
import type { EngineSlot, NodePlacement, Placement } from "../contracts/plan.ts";
import type { Recipe } from "../contracts/recipe.ts";
import { batchProblems } from "./trainer-batch.ts";

/*
 * slime packs one bundle per GPU, sorts them by (node, GPU id) and hands out the sorted list in order:
 * actor [0, A), rollout [A, A+R), prm [A+R, A+R+P). The rules that keep this honest across nodes:
 *  1. A + R + P <= nodes × gpus_per_node                                   (GPU_OVERSUBSCRIBED)
 *  2. tp×pp×cp divides A (Megatron); rollout_tp divides R; prm_tp divides P (TP_MISMATCH)
 *  3. the trainer fills whole nodes when it spans several: A <= gpus_per_node or A % gpus_per_node == 0
 *  4. the rollout and PRM slices each lie inside one node or start on a node boundary (slime groups engines
 *     by `rank // engines_per_node` and gives each group the host of its first engine)
 *  5. every engine sits on one node                                        (rules 3-5: NODE_MISALIGNED)
 *  6. a standalone judge is one SGLang server: its GPUs sit on one node.
 *  7. the batch fits the trainer's data-parallel size (trainer-batch.ts)
 */

export interface Slices {
  actor: number;
  rollout: number;
  prm: number; // 0 when the judge is external
}

/** GPUs per role as slime will be told; an external judge takes no GPUs. */
export function gpuSlices(recipe: Recipe): Slices {
  const prm = recipe.judge.launch === "external" ? 0 : recipe.cluster.prm_gpus;
  return { actor: recipe.cluster.actor_gpus, rollout: recipe.cluster.rollout_gpus, prm };
}

/** slime's --actor-num-nodes / --actor-num-gpus-per-node for a node-aligned trainer slice. */
export function actorLayout(recipe: Recipe): { numNodes: number; gpusPerNode: number } {
  const { actor_gpus: actor, gpus_per_node: perNode } = recipe.cluster;
  return actor <= perNode ? { numNodes: 1, gpusPerNode: actor } : { numNodes: actor / perNode, gpusPerNode: perNode };
}

export function planPlacement(recipe: Recipe): Placement {
  const problems = placementProblems(recipe);
  if (problems.length > 0) throw new OpenclawRlErrorList(problems);
  const { nodes: nodeCount, gpus_per_node: perNode } = recipe.cluster;
  const slices = gpuSlices(recipe);
  const nodes: NodePlacement[] = Array.from({ length: nodeCount }, (_, node) => ({ node, actor: [], rollout: [], prm: [], idle: [] }));
  const roleOf = (index: number): "actor" | "rollout" | "prm" | "idle" => {
    if (index < slices.actor) return "actor";
    if (index < slices.actor + slices.rollout) return "rollout";
    if (index < slices.actor + slices.rollout + slices.prm) return "prm";
    return "idle";
  };
  for (let index = 0; index < nodeCount * perNode; index++) {
    nodes[Math.floor(index / perNode)]![roleOf(index)].push(index % perNode);
  }
  const engines: EngineSlot[] = [
    ...engineSlots("rollout", slices.actor, slices.rollout, recipe.cluster.rollout_tp, perNode),
    ...engineSlots("prm", slices.actor + slices.rollout, slices.prm, recipe.cluster.prm_tp, perNode),
  ];
  return { nodes, engines, totalGpus: nodeCount * perNode };
}

function engineSlots(role: EngineSlot["role"], start: number, size: number, tp: number, perNode: number): EngineSlot[] {
  const slots: EngineSlot[] = [];
  for (let first = start; first < start + size; first += tp) {
    const gpus = Array.from({ length: tp }, (_, offset) => (first + offset) % perNode);
    slots.push({ role, node: Math.floor(first / perNode), gpus });
  }
  return slots;
}

/** Every placement problem of the recipe, one error each, naming the YAML key to change. */
export function placementProblems(recipe: Recipe): OpenclawRlError[] {
  const cluster = recipe.cluster;
  const perNode = cluster.gpus_per_node;
  const total = cluster.nodes * perNode;
  const slices = gpuSlices(recipe);
  const asked = slices.actor + slices.rollout + slices.prm;
  if (asked > total) {
    const path = slices.prm > 0 ? "cluster.prm_gpus" : "cluster.rollout_gpus";
    return [
      new OpenclawRlError(
        "GPU_OVERSUBSCRIBED",
        `actor ${slices.actor} + rollout ${slices.rollout} + prm ${slices.prm} = ${asked} GPUs asked, but ${cluster.nodes} node(s) × ${perNode} = ${total} exist`,
        { path, hint: "lower cluster.actor_gpus / rollout_gpus / prm_gpus or raise cluster.nodes / gpus_per_node" },
      ),
    ];
  }
  const problems: OpenclawRlError[] = [];
  const add = (code: "TP_MISMATCH" | "NODE_MISALIGNED" | "PLACEMENT_INVALID", path: string, message: string, hint?: string) =>
    problems.push(new OpenclawRlError(code, message, { path, hint }));

  if (recipe.judge.launch !== "external" && slices.prm === 0) {
    add("PLACEMENT_INVALID", "cluster.prm_gpus", `judge.launch is ${recipe.judge.launch}, so the judge needs GPUs (cluster.prm_gpus is 0)`, "set cluster.prm_gpus, or judge.launch: external with judge.url");
  }
  if (recipe.derived.trainingBackend === "megatron") {
    const modelParallel = cluster.actor_tp * cluster.actor_pp * cluster.actor_cp;
    if (slices.actor % modelParallel !== 0) {
      add("TP_MISMATCH", "cluster.actor_tp", `actor_tp ${cluster.actor_tp} × actor_pp ${cluster.actor_pp} × actor_cp ${cluster.actor_cp} = ${modelParallel} does not divide cluster.actor_gpus ${slices.actor}`);
    }
    if (cluster.actor_tp > perNode) add("TP_MISMATCH", "cluster.actor_tp", `actor_tp ${cluster.actor_tp} is larger than one node (${perNode} GPUs)`);
  }
  checkEngines("rollout", slices.rollout, cluster.rollout_tp, add);
  if (slices.prm > 0) checkEngines("prm", slices.prm, cluster.prm_tp, add);
  if (problems.length > 0) return problems;
  problems.push(...batchProblems(recipe));

  if (slices.actor > perNode && slices.actor % perNode !== 0) {
    add("NODE_MISALIGNED", "cluster.actor_gpus", `the trainer spans nodes, so cluster.actor_gpus (${slices.actor}) must be a multiple of gpus_per_node (${perNode})`, "slime's trainer takes whole nodes when it spans several");
  }
  checkSliceAlignment("rollout", slices.actor, slices.rollout, cluster.rollout_tp, perNode, add);
  checkSliceAlignment("prm", slices.actor + slices.rollout, slices.prm, cluster.prm_tp, perNode, add);
  if (recipe.judge.launch === "standalone" && slices.prm > 0 && !insideOneNode(slices.actor + slices.rollout, slices.prm, perNode)) {
    add("NODE_MISALIGNED", "cluster.prm_gpus", "judge.launch standalone runs one SGLang server, so its GPUs must sit on one node", "use judge.launch: slime, or fewer cluster.prm_gpus");
  }
  return problems;
}

type AddProblem = (code: "TP_MISMATCH" | "NODE_MISALIGNED" | "PLACEMENT_INVALID", path: string, message: string, hint?: string) => void;

function checkEngines(role: "rollout" | "prm", size: number, tp: number, add: AddProblem): void {
  if (size % tp !== 0) {
    add("TP_MISMATCH", `cluster.${role}_tp`, `${role}_tp ${tp} does not divide cluster.${role}_gpus ${size} (every engine takes ${role}_tp GPUs)`);
  }
}

function insideOneNode(start: number, size: number, perNode: number): boolean {
  return Math.floor(start / perNode) === Math.floor((start + size - 1) / perNode);
}

function checkSliceAlignment(role: "rollout" | "prm", start: number, size: number, tp: number, perNode: number, add: AddProblem): void {
  if (size === 0) return;
  if (!insideOneNode(start, size, perNode) && start % perNode !== 0) {
    const node = Math.floor(start / perNode);
    add(
      "NODE_MISALIGNED",
      `cluster.${role}_gpus`,
      `the ${role} slice (global GPUs ${start}-${start + size - 1}) spans nodes but starts at GPU ${start % perNode} of node ${node}; slime would give some of its engines the wrong host`,
      "make the slices before it fill whole nodes, or shrink the slice to fit one node",
    );
    return;
  }
  for (let first = start; first < start + size; first += tp) {
    if (!insideOneNode(first, tp, perNode)) {
      add("NODE_MISALIGNED", `cluster.${role}_tp`, `a ${role} engine (global GPUs ${first}-${first + tp - 1}) would straddle two nodes; ${role}_tp must divide gpus_per_node (${perNode})`);
      return;
    }
  }
}
