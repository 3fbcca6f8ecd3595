// GPU placement: slime's packing order (actor, rollout, prm over the node-major GPU list), and every rule that
// keeps it honest: oversubscription, TP that does not divide, slices and engines that are not node-aligned.
import { describe, expect, it } from "vitest";
import { OpenclawRlErrorList } from "../../contracts/errors.ts";
import type { RecipeInput } from "../../contracts/recipe.ts";
import { parseRecipe } from "../../cli/recipe-file.ts";
import { actorLayout, planPlacement } from "../../launchers/placement.ts";

function place(cluster: RecipeInput["cluster"], extra: Partial<RecipeInput> = {}) {
  return planPlacement(parseRecipe({ ...extra, cluster }));
}

function placementErrors(cluster: RecipeInput["cluster"], extra: Partial<RecipeInput> = {}): { code: string; path: string | undefined }[] {
  try {
    place(cluster, extra);
  } catch (error) {
    if (error instanceof OpenclawRlErrorList) return error.errors.map((item) => ({ code: item.code, path: item.path }));
    throw error;
  }
  return [];
}

describe("placement", () => {
  it("single node 4/2/2 of 8: actor 0-3, policy engine on 4-5, judge engine on 6-7", () => {
    const placement = place({});
    expect(placement.nodes).toEqual([{ node: 0, actor: [0, 1, 2, 3], rollout: [4, 5], prm: [6, 7], idle: [] }]);
    expect(placement.engines).toEqual([
      { role: "rollout", node: 0, gpus: [4, 5] },
      { role: "prm", node: 0, gpus: [6, 7] },
    ]);
  });

  it("LoRA 2/1/1 of 4 with TP 1 engines", () => {
    const placement = place({ gpus_per_node: 4, actor_gpus: 2, rollout_gpus: 1, prm_gpus: 1, rollout_tp: 1, prm_tp: 1 }, { training: { lora: {} } });
    expect(placement.nodes[0]).toEqual({ node: 0, actor: [0, 1], rollout: [2], prm: [3], idle: [] });
    expect(placement.engines.map((engine) => engine.gpus)).toEqual([[2], [3]]);
  });

  it("leaves unused GPUs idle and an external judge takes none", () => {
    const placement = place({ actor_gpus: 4, rollout_gpus: 2, prm_gpus: 2 }, { judge: { launch: "external", url: "http://judge:1" } });
    expect(placement.nodes[0]).toMatchObject({ prm: [], idle: [6, 7] });
  });

  it("multi-node aligned: trainer fills node 0, policy and judge share node 1", () => {
    const placement = place({ nodes: 2, actor_gpus: 8, rollout_gpus: 4, prm_gpus: 4 });
    expect(placement.nodes).toEqual([
      { node: 0, actor: [0, 1, 2, 3, 4, 5, 6, 7], rollout: [], prm: [], idle: [] },
      { node: 1, actor: [], rollout: [0, 1, 2, 3], prm: [4, 5, 6, 7], idle: [] },
    ]);
    expect(placement.engines.map((engine) => `${engine.role}@${engine.node}:${engine.gpus.join(",")}`)).toEqual(["rollout@1:0,1", "rollout@1:2,3", "prm@1:4,5", "prm@1:6,7"]);
  });

  it("multi-node: a trainer over two whole nodes gives slime 2 nodes × 8", () => {
    expect(actorLayout(parseRecipe({ cluster: { nodes: 3, actor_gpus: 16, rollout_gpus: 4, prm_gpus: 4 } }))).toEqual({ numNodes: 2, gpusPerNode: 8 });
  });

  it("counts GPUs over all nodes, not one (the reference's issue #56)", () => {
    expect(placementErrors({ nodes: 2, actor_gpus: 8, rollout_gpus: 4, prm_gpus: 4 })).toEqual([]);
    expect(placementErrors({ actor_gpus: 4, rollout_gpus: 2, prm_gpus: 4 })).toEqual([{ code: "GPU_OVERSUBSCRIBED", path: "cluster.prm_gpus" }]);
  });

  it("multi-node misaligned: a rollout slice spanning nodes from mid-node, a trainer of 12 on 8-GPU nodes", () => {
    expect(placementErrors({ nodes: 2, actor_gpus: 4, rollout_gpus: 8, prm_gpus: 4 })).toContainEqual({ code: "NODE_MISALIGNED", path: "cluster.rollout_gpus" });
    expect(placementErrors({ nodes: 2, actor_gpus: 12, rollout_gpus: 2, prm_gpus: 2 })).toContainEqual({ code: "NODE_MISALIGNED", path: "cluster.actor_gpus" });
  });

  it("an engine may not straddle two nodes", () => {
    expect(placementErrors({ nodes: 2, gpus_per_node: 4, actor_gpus: 4, rollout_gpus: 3, prm_gpus: 1, rollout_tp: 3, prm_tp: 1 })).toEqual([]);
    expect(placementErrors({ nodes: 3, gpus_per_node: 4, actor_gpus: 4, rollout_gpus: 6, prm_gpus: 2, rollout_tp: 3, prm_tp: 2 })).toContainEqual({ code: "NODE_MISALIGNED", path: "cluster.rollout_tp" });
  });

  it("a standalone judge is one server: its GPUs on one node", () => {
    expect(placementErrors({ nodes: 2, actor_gpus: 8, rollout_gpus: 4, prm_gpus: 4 }, { judge: { launch: "standalone" } })).toEqual([]);
    expect(placementErrors({ nodes: 2, actor_gpus: 4, rollout_gpus: 2, prm_gpus: 4, prm_tp: 2 }, { judge: { launch: "standalone" } })).toContainEqual({ code: "NODE_MISALIGNED", path: "cluster.prm_gpus" });
  });

  it("TP that does not divide its slice, one error per slice", () => {
    expect(placementErrors({ actor_gpus: 3, rollout_gpus: 3, prm_gpus: 2, actor_tp: 2, rollout_tp: 2, prm_tp: 2 })).toEqual([
      { code: "TP_MISMATCH", path: "cluster.actor_tp" },
      { code: "TP_MISMATCH", path: "cluster.rollout_tp" },
    ]);
    expect(placementErrors({ gpus_per_node: 4, actor_gpus: 2, rollout_gpus: 1, prm_gpus: 1, rollout_tp: 1, prm_tp: 1, actor_tp: 4 }, { training: { lora: {} } })).toEqual([]);
  });

  it("a judge launched by slime or standalone needs GPUs", () => {
    expect(placementErrors({ prm_gpus: 0 })).toEqual([{ code: "PLACEMENT_INVALID", path: "cluster.prm_gpus" }]);
  });
});
