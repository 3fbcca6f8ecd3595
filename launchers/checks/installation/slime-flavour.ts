// Tells the OpenClaw-RL fork's slime from upstream slime by the options their arguments.py defines.
// Ignores versions within a flavour (the commit is printed, not judged).
import type { SlimeProbe } from "./engine-probe-report.ts";

export type SlimeFlavour = "fork" | "upstream" | "unknown";

/** The fork's vendored slime as of Gen-Verse/OpenClaw-RL 0d034dd (its HEAD, which the reference runs). */
export const FORK_COMMIT = "0d034dd5e65399fc1cc7c266feb9eddbb4c8c3a5";

type Arguments = NonNullable<SlimeProbe["arguments"]>;

/**
 * fork: --prm-enable (the framework-hosted judge), with --distill-topk and on_policy_distillation among the
 * advantage estimators; upstream: --use-opd (OPD moved out of the advantage estimators) and no --prm-enable.
 */
export function slimeFlavour(slimeArguments: Arguments): SlimeFlavour {
  const has = (option: string) => slimeArguments.markers[option] === true;
  const opdEstimator = slimeArguments.advantage_estimators?.includes("on_policy_distillation") ?? false;
  if (has("--prm-enable") && !has("--use-opd")) return "fork";
  if (has("--use-opd") && !has("--prm-enable") && !opdEstimator) return "upstream";
  return "unknown";
}

/** The markers found, for a report line: `--prm-enable, --distill-topk, advantage on_policy_distillation`. */
export function flavourMarkers(slimeArguments: Arguments): string {
  const found = Object.entries(slimeArguments.markers)
    .filter(([, present]) => present)
    .map(([option]) => option);
  if (slimeArguments.advantage_estimators?.includes("on_policy_distillation")) found.push("advantage estimator on_policy_distillation");
  if (slimeArguments.train_backends) found.push(`--train-backend ${slimeArguments.train_backends.join("|")}`);
  return found.length > 0 ? found.join(", ") : "none of the known options";
}
