// The evaluation of one weight version: every opener × samples session, at most `concurrency` at once (so at most
// that many evaluation requests wait on the policy), and the version's metrics, paired against the base's per session (opener, sample).
import { EVALUATION_VERSION, type PersonaOpener, type SessionResult, type VersionMetrics } from "../../contracts/evaluation.ts";
import { evaluateEpisodes, type EpisodePlan } from "./episode-evaluation.ts";
import { meanWithInterval, pairedWinRate } from "./evaluation-statistics.ts";
import { runSession, type SessionSettings } from "./evaluation-session.ts";

export interface EvaluationPlan {
  openers: PersonaOpener[];
  samples: number;
  concurrency: number;
  session: Omit<SessionSettings, "requests">;
  /** Held-out general-agent tasks in the run's environment (evaluation.tasks); null without them. */
  episodes: EpisodePlan | null;
}

export interface VersionEvaluation {
  metrics: VersionMetrics;
  sessions: SessionResult[];
}

export async function evaluateVersion(plan: EvaluationPlan, version: string, base: VersionMetrics | null, signal?: AbortSignal): Promise<VersionEvaluation> {
  const requests = { policy: 0, simulator: 0, scorer: 0 };
  const settings: SessionSettings = { ...plan.session, requests };
  const jobs = plan.openers.flatMap((opener) => Array.from({ length: plan.samples }, (_, sample) => ({ opener, sample })));
  const sessions: SessionResult[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length && !signal?.aborted) {
      const index = next++;
      const job = jobs[index]!;
      sessions[index] = await runSession(settings, job.opener, job.sample, `v${version}`, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, jobs.length) }, worker));
  const done = sessions.filter(Boolean);
  const metrics = summarise(version, done, requests, base);
  if (plan.episodes && !signal?.aborted) metrics.episodes = (await evaluateEpisodes(plan.episodes, version, signal ?? new AbortController().signal)).metrics;
  return { metrics, sessions: done };
}

export function summarise(version: string, sessions: readonly SessionResult[], requests: VersionMetrics["requests"], base: VersionMetrics | null): VersionMetrics {
  const scores = sessions.map((session) => session.score).filter((score): score is number => score !== null);
  const { mean, interval: unbounded } = meanWithInterval(scores);
  const interval = unbounded && { low: Math.max(0, unbounded.low), high: Math.min(1, unbounded.high) }; // (scores lie in [0, 1])
  const perSession: Record<string, number | null> = {};
  for (const session of sessions) perSession[`${session.openerId}#${session.sample}`] = session.score;
  const paired = base ? pairedWinRate(perSession, base.perSession) : null;
  return {
    format: `openclaw-rl-evaluation/${EVALUATION_VERSION}`,
    version,
    at: Date.now(),
    sessions: sessions.length,
    scored: scores.length,
    meanScore: mean,
    scoreCi: interval,
    winRate: paired?.rate ?? null,
    winRateCi: paired?.interval ?? null,
    baseVersion: base?.version ?? null,
    requests,
    perSession,
  };
}
