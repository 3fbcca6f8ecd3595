// The learning-latency bench's table: one column per recipe, each stage's median / p90 in seconds under the names
// docs/benchmarks.md gives them, each total against the default's (the first column). Formatting only; runs: the bench.
import { LEARNING_LATENCY_STAGES, type StatusSnapshot } from "../../contracts/status.ts";
import type { Spread } from "../../orchestrator/status/learning-latency.ts";

export interface MeasuredColumn {
  label: string;
  latency: StatusSnapshot["learning_latency"];
  /** The closed stage by what closed the turn (a tool result or the user's reply). */
  closedBy: Record<"tool" | "user", Spread | null>;
}

/** The rows under the names docs/benchmarks.md and docs/judging.md give the stages. */
export const STAGE_ROW: Record<(typeof LEARNING_LATENCY_STAGES)[number], string> = { closed: "closed", judged: "judged", handed: "handed to the trainer", trained: "trained", served: "served", total: "total" };

const cell = (spread: Spread | null) => (spread === null ? "–" : `${(spread.median / 1000).toFixed(1)} / ${(spread.p90 / 1000).toFixed(1)}`);

/** A total against the default's, median and p90: " (0.27× / 0.27×)"; "" where the default has none. */
export function ratio(total: Spread | null, base: Spread | null): string {
  return total === null || base === null || base.median === 0 || base.p90 === 0 ? "" : ` (${(total.median / base.median).toFixed(2)}× / ${(total.p90 / base.p90).toFixed(2)}×)`;
}

/** The markdown table, the first column the default the others are compared with. */
export function latencyTable(results: readonly MeasuredColumn[], turns: number): string[] {
  const base = results[0]!;
  const lines = [`| stage (s, median / p90, wall time of the scaled run) | ${results.map((result) => result.label).join(" | ")} |`, `| --- | ${results.map(() => "---").join(" | ")} |`];
  for (const stage of LEARNING_LATENCY_STAGES) {
    const cells = results.map((result) =>
      stage === "total" && result.latency.stages.total !== null
        ? `**${cell(result.latency.stages.total)}**${result === base ? "" : ratio(result.latency.stages.total, base.latency.stages.total)}`
        : cell(result.latency.stages[stage]),
    );
    lines.push(`| ${STAGE_ROW[stage]} | ${cells.join(" | ")} |`);
  }
  lines.push(`| closed by a tool result | ${results.map((result) => cell(result.closedBy.tool)).join(" | ")} |`);
  lines.push(`| closed by the user's reply | ${results.map((result) => cell(result.closedBy.user)).join(" | ")} |`);
  lines.push(`| samples served (of ${turns} turns) | ${results.map((result) => result.latency.samples).join(" | ")} |`);
  return lines;
}
