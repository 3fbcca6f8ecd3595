// The run's episodes against an environment server, driven in the background through the proxy, with the rollout
// budget over the store; stopped first when the run stops. Ignores how one episode is driven (episode-driver.ts).
import { setMaxListeners } from "node:events";
import path from "node:path";
import type { RunEventInput } from "../../contracts/events.ts";
import { sleepUnlessAborted } from "../../lib/abortable-sleep.ts";
import { environmentClient } from "../episodes/environment-protocols.ts";
import { EpisodeDriver, type EpisodeResult } from "../episodes/episode-driver.ts";
import { RolloutBudget } from "../episodes/rollout-budget.ts";
import { episodeTasksFile, readTasks } from "../episodes/task-file.ts";
import type { SampleStore } from "../store/sample-store.ts";
import type { Run } from "./run-context.ts";

/**
 * Episodes against the environment server (episodes.env_url, or the built-in one the supervisor runs), through the
 * proxy like any harness, in the background: it waits for the environment's /healthz and for the engines, starts a
 * task group only when its samples can be trained before they go stale (rollout-budget.ts, with the sample store),
 * says when every planned episode is done, and is stopped first (its leases closed) when the run stops. Off when the
 * recipe names no environment. With continuous evaluation, episodes wait for the base's evaluation (`baseEvaluated`),
 * so the base is untrained.
 */
export async function startEpisodes(run: Run, proxyUrl: string, store: SampleStore | null, baseEvaluated: () => boolean): Promise<void> {
  const { recipe, runDir, bus, options } = run;
  const episodes = recipe.episodes;
  const url = recipe.derived.environmentUrl;
  const tasksFile = episodeTasksFile(episodes);
  if (url === null || tasksFile === null) return;
  const tasks = await readTasks(tasksFile); // (a bad task file fails the start, naming the line)
  const stop = new AbortController();
  // every worker waits on it (engines, budget, a request and its retries at once): a few listeners each, not a leak
  setMaxListeners(10 + 4 * episodes.concurrency, stop.signal);
  const environment = environmentClient(episodes.env_protocol, url, { signal: stop.signal });
  const budget = store ? followBudget(run, store) : null;
  const driver = new EpisodeDriver({
    proxyUrl: proxyUrl.replace(/\/v1$/, ""),
    apiKey: options.apiKey,
    model: recipe.model.served_name,
    environment,
    tasks,
    samplesPerTask: episodes.samples_per_task,
    maxSteps: episodes.max_steps,
    concurrency: episodes.concurrency,
    epochs: episodes.epochs,
    contextTokens: recipe.model.context_length - recipe.model.max_response_tokens,
    uid: options.runId ?? `${path.basename(runDir)}-${Date.now().toString(36)}`,
    ready: () => options.readiness().ready && baseEvaluated(),
    ...(budget ? { admitGroup: (question) => budget.mayStartGroup(question) } : {}),
    onPlan: (planned) => bus.emit({ type: "episodes-planned", planned, tasks: tasks.length, samplesPerTask: episodes.samples_per_task, epochs: episodes.epochs }),
    // every episode ends visibly: one that failed at allocate or reset is counted failed, and its reason said
    onFailedBeforeSteps: (result) => {
      const failure = result.failure ?? "the episode failed before its first step";
      bus.emit({ type: "episode-end", episodeId: result.episodeId, groupId: result.groupId, score: null, failure, steps: 0, weightVersion: null });
      bus.emit({ type: "error", source: "episodes", code: "ENVIRONMENT_ERROR", message: `${result.episodeId}: ${failure}` });
    },
    signal: stop.signal,
  });
  const running = (async () => {
    for (let waited = 0; !(await environment.healthy()); waited += 1) {
      if (waited === 30) bus.emit({ type: "error", source: "episodes", code: "ENVIRONMENT_ERROR", message: `the environment server at ${url} has not answered GET /healthz for 30 s; episodes wait for it` });
      if (!(await sleepUnlessAborted(1000, stop.signal))) return;
    }
    const results = await driver.run();
    if (!stop.signal.aborted) bus.emit(episodesDone(tasks.length * episodes.samples_per_task * episodes.epochs, results));
  })().catch((error: unknown) => void bus.emit({ type: "error", source: "episodes", code: "ENVIRONMENT_ERROR", message: (error as Error).message }));
  run.stack.push("episodes", async () => {
    stop.abort();
    await running;
  });
}

/** The rollout budget over the store, told of every episode's end and every judged step (from the bus). */
function followBudget(run: Run, store: SampleStore): RolloutBudget {
  const budget = new RolloutBudget({ staleness: store.staleness, batchSize: run.recipe.training.batch_size, ready: () => store.counts().ready });
  const unsubscribe = run.bus.subscribe((event) => {
    if (event.type === "episode-end") budget.episodeEnded(event.episodeId, event.steps);
    else if (event.type === "turn-judged") budget.stepJudged(event.sessionId);
  });
  run.stack.push("rollout budget", async () => unsubscribe());
  return budget;
}

function episodesDone(planned: number, results: readonly EpisodeResult[]): Extract<RunEventInput, { type: "episodes-done" }> {
  const scores = results.flatMap((result) => (result.score === null ? [] : [result.score]));
  const outcomeRate = scores.length > 0 ? scores.reduce((sum, score) => sum + score, 0) / scores.length : null;
  return { type: "episodes-done", planned, scored: scores.length, failed: results.length - scores.length, outcomeRate };
}
