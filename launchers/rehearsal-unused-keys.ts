// The recipe keys a rehearsal reads nowhere, set away from their defaults: slime's GPU layout (cluster.*, but for
// cluster.nodes / head_address, which place the bridge) and training.lr (the stand-in trainer keeps its own step).
import { recipeSchema, type Recipe } from "../contracts/recipe.ts";
import { STANDIN_LEARNING_RATE } from "./rehearsal-plan.ts";

/** cluster.nodes > 1 makes the bridge listen on cluster.head_address, on any engine (orchestrator/bridge/bridge-server.ts). */
const READ_BY_THE_BRIDGE = new Set(["nodes", "head_address"]);

/** "key value (default D)" for each key the rehearsal ignores that the recipe sets to something else than its default. */
export function rehearsalUnusedKeys(recipe: Recipe): string[] {
  const defaults = recipeSchema.parse({});
  const changed: string[] = [];
  for (const [key, value] of Object.entries(recipe.cluster)) {
    const fallback = (defaults.cluster as Record<string, unknown>)[key];
    if (!READ_BY_THE_BRIDGE.has(key) && JSON.stringify(value) !== JSON.stringify(fallback)) changed.push(`cluster.${key} ${JSON.stringify(value)} (default ${JSON.stringify(fallback)})`);
  }
  if (recipe.training.lr !== defaults.training.lr) changed.push(`training.lr ${recipe.training.lr} (the stand-in trainer steps at ${STANDIN_LEARNING_RATE})`);
  return changed;
}

/** plan's note naming them, or null when there are none. */
export function rehearsalUnusedNote(recipe: Recipe): string | null {
  const changed = rehearsalUnusedKeys(recipe);
  if (changed.length === 0) return null;
  return `unused in rehearsal (slime's GPU layout and learning rate; the stand-ins run on the CPU): ${changed.join(", ")}`;
}
