// The words every screen (status, the dashboard) shows while no held-out evaluation has finished: waiting for the
// first one, or not configured and how to start it. Words only; whether evaluation runs is the recipe's.
import { cliCommand, pastablePath } from "../../lib/cli-command.ts";

/** `everyVersions`: the recipe's evaluation.every_versions (0: off); `runDir`: named in the `eval` command when known. */
export function evaluationAdvice(everyVersions: number, runDir: string | null): string {
  if (everyVersions > 0) return `every ${everyVersions} versions: none finished yet (the base is evaluated first)`;
  const run = runDir === null ? "" : ` --run ${pastablePath(runDir)}`;
  return `not configured: set evaluation.every_versions (docs/evaluation.md), or run \`${cliCommand(`eval${run}`)}\``;
}
