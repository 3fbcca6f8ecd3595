// The general-agent part of an evaluation: every held-out task `k` times in the run's environment, each step through
// the proxy as a side turn (EpisodeDriver's sideTurns: never judged or trained), and the outcome rate and pass@k.
import type { EpisodeMetrics } from "../../contracts/evaluation.ts";
import type { EpisodeEnvironment } from "../episodes/episode-environment.ts";
import { EpisodeDriver, type EpisodeResult } from "../episodes/episode-driver.ts";
import type { Task } from "../episodes/task-file.ts";
import { passAtK, wilsonInterval } from "./evaluation-statistics.ts";

export interface EpisodePlan {
  /** The proxy's base URL (http://host:port, no /v1) and its key. */
  proxyUrl: string;
  apiKey: string | undefined;
  model: string;
  environment: EpisodeEnvironment;
  tasks: readonly Task[];
  k: number;
  maxSteps: number;
  concurrency: number;
  contextTokens: number;
}

export async function evaluateEpisodes(plan: EpisodePlan, version: string, signal: AbortSignal): Promise<{ metrics: EpisodeMetrics; results: EpisodeResult[] }> {
  const driver = new EpisodeDriver({
    proxyUrl: plan.proxyUrl.replace(/\/v1\/?$/, ""),
    apiKey: plan.apiKey,
    model: plan.model,
    environment: plan.environment,
    tasks: plan.tasks,
    samplesPerTask: plan.k,
    maxSteps: plan.maxSteps,
    concurrency: plan.concurrency,
    epochs: 1,
    contextTokens: plan.contextTokens,
    uid: `eval-v${version}-${Date.now().toString(36)}`,
    signal,
    sideTurns: true,
  });
  const results = await driver.run();
  return { metrics: episodeMetrics(results, plan.tasks.length, plan.k), results };
}

export function episodeMetrics(results: readonly EpisodeResult[], tasks: number, k: number): EpisodeMetrics {
  const scored = results.filter((result) => result.score !== null);
  const successes = scored.filter((result) => result.score === 1).length;
  const byTask = new Map<string, { samples: number; passed: number }>();
  for (const result of scored) {
    const tally = byTask.get(result.taskKey) ?? { samples: 0, passed: 0 };
    tally.samples += 1;
    tally.passed += result.score === 1 ? 1 : 0;
    byTask.set(result.taskKey, tally);
  }
  const complete = [...byTask.values()].filter((tally) => tally.samples >= k); // (pass@k needs k scored samples)
  const passes = complete.map((tally) => passAtK(tally.samples, tally.passed, k));
  return {
    tasks,
    episodes: results.length,
    failed: results.length - scored.length,
    outcomeRate: scored.length === 0 ? null : scored.reduce((sum, result) => sum + result.score!, 0) / scored.length,
    outcomeCi: wilsonInterval(successes, scored.length),
    k,
    passAtK: passes.length === 0 ? null : passes.reduce((sum, value) => sum + value, 0) / passes.length,
    passAtKCi: wilsonInterval(passes.reduce((sum, value) => sum + value, 0), passes.length),
  };
}
