// `status`'s held-out evaluation lines: the score per evaluated weight version with its interval, the paired win rate
// against the base, held-out tasks' outcome rate; or how to turn it on. Text only; the numbers are the run tally's.
import type { StatusSnapshot } from "../../contracts/status.ts";
import { cliCommand, pastablePath } from "../../lib/cli-command.ts";

/** The last few versions shown; `status --json` has them all. */
const SHOWN = 4;

export function evaluationLines(evaluation: StatusSnapshot["evaluation"], runDir: string | null): string[] {
  if (evaluation.versions.length === 0) {
    if (evaluation.configured) return [`held-out    every ${evaluation.every_versions} versions: none finished yet (the base is evaluated first)`];
    const run = runDir === null ? "" : ` --run ${pastablePath(runDir)}`;
    return [`held-out    not configured: set evaluation.every_versions (docs/evaluation.md), or run \`${cliCommand(`eval${run}`)}\``];
  }
  const percent = (value: number | null) => (value === null ? "–" : `${(100 * value).toFixed(1)}%`);
  const interval = (ci: { low: number; high: number } | null) => (ci === null ? "" : ` [${(100 * ci.low).toFixed(1)}, ${(100 * ci.high).toFixed(1)}]`);
  const label = (point: StatusSnapshot["evaluation"]["versions"][number]) => `v${point.version}${point.version_at_end !== point.version ? `→${point.version_at_end}` : ""}`;
  const base = evaluation.versions[0]!;
  const shown = evaluation.versions.length <= SHOWN + 1 ? evaluation.versions.slice(1) : evaluation.versions.slice(-SHOWN);
  const lines = [`held-out    (95% intervals; not the training reward) base ${label(base)}: ${describe(base)}`];
  for (const point of shown) {
    const win = point.win_rate === null ? "" : ` · wins ${percent(point.win_rate)}${interval(point.win_rate_ci)} against the base`;
    lines.push(`            ${label(point)}: ${describe(point)}${win}`);
  }
  return lines;

  function describe(point: StatusSnapshot["evaluation"]["versions"][number]): string {
    const parts = [];
    if (point.mean_score !== null) parts.push(`score ${percent(point.mean_score)}${interval(point.score_ci)}`);
    if (point.outcome_rate !== null) parts.push(`outcome ${percent(point.outcome_rate)}${interval(point.outcome_ci)}`);
    return `${parts.join(" · ") || "nothing scored"} · ${point.requests} engine requests`;
  }
}
