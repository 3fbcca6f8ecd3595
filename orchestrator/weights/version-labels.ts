// Whether the weight version SGLang labels tokens with is exact for a run: not on slime's FSDP backend, whose weight
// sync never pauses generation. Owns the wording status, the dashboard and the start banner show; not the labels.
import type { Recipe } from "../../contracts/recipe.ts";

export interface VersionLabels {
  exact: boolean;
  /** Why they are not exact (null when they are). */
  note: string | null;
}

/**
 * slime's FSDP weight sync (the LoRA path) sends weight buckets while the engines keep generating, unlike Megatron's,
 * and SGLang sets the new weight_version when the first bucket lands: a request that starts between two buckets runs
 * on weights partly at the new version and is labelled with it. Nothing tells when the last bucket landed, so the
 * labels are said to be inexact instead.
 */
export function versionLabels(recipe: Recipe): VersionLabels {
  if (recipe.engine.kind !== "slime" || recipe.derived.trainingBackend !== "fsdp") return { exact: true, note: null };
  return {
    exact: false,
    note:
      "weight version labels are approximate on slime's FSDP backend (training.lora): its weight sync does not pause generation, so a token labelled version N may come from weights still partly at N-1; staleness is counted from these labels",
  };
}
