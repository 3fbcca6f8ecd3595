// Preflight for engine.kind slime: the installed slime and SGLang (the probe doctor runs) against the recipe.
// A failure refuses the start with the recipe key and the fix; a warning is only said. Ignores everything else.
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { probeEngine } from "../doctor/engine-probe.ts";
import { parserNames, resolveFamily } from "../../lib/model/model-family.ts";
import { matchInstallation } from "../doctor/installation-match.ts";

export interface InstallationVerdict {
  problems: OpenclawRlError[];
  warnings: string[];
}

export async function installationProblems(recipe: Recipe, packageRoot: string, environment: Record<string, string | undefined>): Promise<InstallationVerdict> {
  const outcome = await probeEngine(recipe, { packageRoot, environment });
  if (outcome.kind === "probe-failed") {
    return { problems: [new OpenclawRlError("ENGINE_UNSUPPORTED", `cannot look at the installed slime and SGLang: ${outcome.detail}`, { path: "engine.slime.python", hint: outcome.fix })], warnings: [] };
  }
  const findings = matchInstallation(recipe, outcome.installation, parserNames(recipe.model, (await resolveFamily(recipe)).sglang).toolCallParser);
  return {
    problems: findings.filter((finding) => finding.status === "fail").map((finding) => new OpenclawRlError("ENGINE_UNSUPPORTED", finding.detail, { path: finding.path, hint: finding.fix })),
    warnings: findings.filter((finding) => finding.status === "warn").map((finding) => `${finding.detail}${finding.fix ? ` (${finding.fix})` : ""}`),
  };
}
