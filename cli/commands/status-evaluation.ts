// `status`'s held-out evaluation lines: the score per evaluated weight version with its interval, the paired win rate
// against the base, held-out tasks' outcome rate, the best version so far; or how to turn it on. Text only; the numbers
// are the run tally's.
import type { StatusSnapshot } from "../../contracts/status.ts";
import { cliCommand, pastablePath } from "../../lib/cli-command.ts";
import { evaluationAdvice } from "../../orchestrator/evaluation/evaluation-advice.ts";

/** The last few versions shown; `status --json` has them all. */
const SHOWN = 4;

/** What the lines depend on beyond the evaluations: this run's id (a base of another run was reused) and the engine (what exports the best). */
export interface EvaluationContext {
  run: string | null;
  engine: StatusSnapshot["engine"];
}

export function evaluationLines(evaluation: StatusSnapshot["evaluation"], runDir: string | null, context: EvaluationContext = { run: null, engine: "slime" }): string[] {
  if (evaluation.versions.length === 0) return [`held-out    ${evaluationAdvice(evaluation.configured ? evaluation.every_versions : 0, runDir)}`];
  const percent = (value: number | null) => (value === null ? "–" : `${(100 * value).toFixed(1)}%`);
  const interval = (ci: { low: number; high: number } | null) => (ci === null ? "" : ` [${(100 * ci.low).toFixed(1)}, ${(100 * ci.high).toFixed(1)}]`);
  const label = (point: StatusSnapshot["evaluation"]["versions"][number]) => `v${point.version}${point.version_at_end !== point.version ? `→${point.version_at_end}` : ""}`;
  const [first, ...rest] = evaluation.versions;
  const base = first!.base || evaluation.versions.every((point) => !point.base && point.run === null) ? first! : null; // (events without run or base marks: the first is the base, as before)
  const later = base ? rest : evaluation.versions;
  const shown = later.length <= SHOWN + 1 ? later : later.slice(-SHOWN);
  const reused = base && base.run !== null && context.run !== null && base.run !== context.run ? ` (run ${base.run}'s, reused: the same base weights and evaluation plan)` : "";
  const lines = [
    base
      ? `held-out    (95% intervals; not the training reward) base ${label(base)}${reused}: ${describe(base)}`
      : `held-out    (95% intervals; not the training reward) no base evaluated in this run: \`${cliCommand(`eval${runDir === null ? "" : ` --run ${pastablePath(runDir)}`}`)}\` evaluates the base weights and pairs against them`,
  ];
  for (const point of shown) {
    const win = point.win_rate === null ? "" : ` · wins ${percent(point.win_rate)}${interval(point.win_rate_ci)} against the base`;
    lines.push(`            ${label(point)}: ${describe(point)}${win}`);
  }
  const best = evaluation.best;
  if (best) lines.push(`            best so far v${best.version}: score ${percent(best.mean_score)}${interval(best.score_ci)}${bestHint(evaluation.stop_if_worse, context.engine)}`);
  return lines;

  function describe(point: StatusSnapshot["evaluation"]["versions"][number]): string {
    const parts = [];
    if (point.mean_score !== null) parts.push(`score ${percent(point.mean_score)}${interval(point.score_ci)}`);
    if (point.outcome_rate !== null) parts.push(`outcome ${percent(point.outcome_rate)}${interval(point.outcome_ci)}`);
    return `${parts.join(" · ") || "nothing scored"} · ${point.requests} engine requests`;
  }
}

/** What follows the best version: the guard when it is on, else how to export it where something can (slime's checkpoints only). */
function bestHint(stopIfWorse: boolean, engine: StatusSnapshot["engine"]): string {
  if (stopIfWorse) return " · a version significantly below it pauses training (evaluation.stop_if_worse)";
  return engine === "slime" ? " · convert-checkpoint --best exports it" : "";
}
