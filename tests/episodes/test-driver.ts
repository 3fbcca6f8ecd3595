// The episode driver as the tests build it: the stand-in model's name, two samples per task, two at a time, one
// epoch, run uid "run1", an environment client that retries without waiting; each test overrides what it is about.
import { EnvironmentClient } from "../../orchestrator/episodes/environment-client.ts";
import { EpisodeDriver, type EpisodeDriverOptions } from "../../orchestrator/episodes/episode-driver.ts";
import type { Task } from "../../orchestrator/episodes/task-file.ts";

export function testDriver(proxyUrl: string, envUrl: string, tasks: readonly Task[], overrides: Partial<EpisodeDriverOptions> = {}): EpisodeDriver {
  return new EpisodeDriver({
    proxyUrl,
    apiKey: undefined,
    model: "qwen3-4b",
    environment: new EnvironmentClient(envUrl, { capacityBackoffMs: 10, retryDelayMs: 1 }),
    tasks,
    samplesPerTask: 2,
    maxSteps: 5,
    concurrency: 2,
    epochs: 1,
    contextTokens: 32_768,
    uid: "run1",
    signal: new AbortController().signal,
    ...overrides,
  });
}
