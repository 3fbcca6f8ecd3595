// What slime and SGLang the slime environment has (installation/engine_probe.py), and where the recipe disagrees:
// a failure names the recipe key. Ignores torch, ray and our own package (python-check.ts) and the model-args file.
import type { Recipe } from "../../contracts/recipe.ts";
import { parserNames, resolveFamily } from "../../lib/model/model-family.ts";
import { failed, type CheckResult } from "./check-result.ts";
import { probeEngine, type EngineProbeOptions } from "./installation/engine-probe.ts";
import { matchInstallation } from "./installation/installation-match.ts";

export async function checkInstallation(recipe: Recipe, options: EngineProbeOptions): Promise<CheckResult[]> {
  const outcome = await probeEngine(recipe, options);
  if (outcome.kind === "probe-failed") {
    return [failed("slime", `cannot look at the installed slime and SGLang: ${outcome.detail}`, outcome.fix, { code: "ENGINE_UNSUPPORTED", path: "engine.slime.python" })];
  }
  return matchInstallation(recipe, outcome.installation, parserNames(recipe.model, (await resolveFamily(recipe)).sglang).toolCallParser);
}
