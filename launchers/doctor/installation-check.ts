// Doctor: what slime and SGLang the slime environment has (engine_probe.py), and where the recipe disagrees.
// Ignores torch, ray and our own package (python-check.ts) and the model-args file (model-args-check.ts).
import type { Recipe } from "../../contracts/recipe.ts";
import { failed, type CheckResult } from "./doctor-check.ts";
import { probeEngine, type EngineProbeOptions } from "./engine-probe.ts";
import { parserNames, resolveFamily } from "../../lib/model/model-family.ts";
import { matchInstallation } from "./installation-match.ts";

export async function checkInstallation(recipe: Recipe, options: EngineProbeOptions): Promise<CheckResult[]> {
  const outcome = await probeEngine(recipe, options);
  if (outcome.kind === "probe-failed") return [failed("slime", `cannot look at the installed slime and SGLang: ${outcome.detail}`, outcome.fix)];
  return matchInstallation(recipe, outcome.installation, parserNames(recipe.model, (await resolveFamily(recipe)).sglang).toolCallParser).map(({ topic, status, detail, fix }) => (fix === undefined ? { topic, status, detail } : { topic, status, detail, fix }));
}
