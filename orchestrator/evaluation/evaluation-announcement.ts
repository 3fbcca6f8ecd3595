// How a finished held-out evaluation reaches every screen: the evaluation-done event built from its metrics, by
// continuous evaluation in `start` and, for `openclaw-rl eval` beside a running start, through the admin route below.
import type { VersionMetrics } from "../../contracts/evaluation.ts";
import type { RunEventInput } from "../../contracts/events.ts";

/** The admin API's POST route by which `openclaw-rl eval` hands a running start the live version's result. */
export const EVALUATION_RECORDED_ROUTE = "/evaluation/recorded";

/** The evaluation-done event of one evaluated version (its line of evaluations.jsonl). */
export function evaluationDoneEvent(metrics: VersionMetrics): Extract<RunEventInput, { type: "evaluation-done" }> {
  const { version, versionAtEnd, baseVersion, run, sessions, scored, meanScore, scoreCi, winRate, winRateCi, requests, episodes } = metrics;
  return { type: "evaluation-done", version, versionAtEnd: versionAtEnd ?? version, baseVersion, run: run ?? null, sessions, scored, meanScore, scoreCi, winRate, winRateCi, requests, episodes: episodes ?? null };
}
