// The `status` lines of how soon it learns: median and p90 of each wait from a turn's answer to the served weights
// that include it (orchestrator/status/learning-latency.ts). Ignores everything else on the screen.
import { LEARNING_LATENCY_STAGES, type StatusSnapshot } from "../../contracts/status.ts";

const STAGE_WORDS: Record<(typeof LEARNING_LATENCY_STAGES)[number], string> = {
  closed: "closed",
  judged: "judged",
  handed: "to trainer",
  trained: "trained",
  served: "served",
  total: "answer→served",
};

export function learningLatencyLines(latency: StatusSnapshot["learning_latency"], ago: (at: number) => string): string[] {
  const served = latency.last_served_update_at === null ? "no weight update served yet" : `last update served ${ago(latency.last_served_update_at)}`;
  if (latency.samples === 0) {
    const waiting = latency.awaiting_serve > 0 ? `${latency.awaiting_serve} trained, waiting for the engines' next update` : "no trained sample served yet";
    return [`learning    ${waiting} · ${served}`];
  }
  const cells = LEARNING_LATENCY_STAGES.map((stage) => {
    const spread = latency.stages[stage];
    return spread === null ? `${STAGE_WORDS[stage]} –` : `${STAGE_WORDS[stage]} ${seconds(spread.median)}/${seconds(spread.p90)}`;
  });
  return [
    `learning    median/p90 over the last ${latency.samples} trained samples, each wait from the one before: ${cells.slice(0, -1).join(" · ")}`,
    `            ${cells[cells.length - 1]} · ${served}${latency.awaiting_serve > 0 ? ` · ${latency.awaiting_serve} trained, not served yet` : ""}`,
  ];
}

/** Seconds with one decimal under a minute, else minutes. */
export function seconds(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : `${(ms / 60_000).toFixed(1)}m`;
}
