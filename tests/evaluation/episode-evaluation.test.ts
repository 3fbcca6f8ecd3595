// Held-out general-agent tasks: each run k times through a real proxy as side turns (no episode of the run's, no
// turn closed or judged, no outcome reported) against a lease-protocol environment; the outcome rate and pass@k.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvironmentClient } from "../../orchestrator/episodes/environment-client.ts";
import type { Task } from "../../orchestrator/episodes/task-file.ts";
import { episodeMetrics, evaluateEpisodes } from "../../orchestrator/evaluation/episode-evaluation.ts";
import { LeaseEnvServer } from "../episodes/lease-env-server.ts";
import { startHarness, type Harness } from "../proxy/harness.ts";

/** Calls `add` with 2 and 3 (2 and 4 when asked about 7 + 1: wrong), then answers. */
function script(prompt: string): string {
  if (prompt.includes("<tool_response>")) return "<think>\nDone.\n</think>\n\nThe answer is 5.";
  const [a, b] = prompt.includes("7 + 1") ? [2, 4] : [2, 3];
  return `<think>\nI should add.\n</think>\n\n<tool_call>\n{"name": "add", "arguments": {"a": ${a}, "b": ${b}}}\n</tool_call>`;
}

describe("episode evaluation", () => {
  let harness: Harness;
  let env: LeaseEnvServer;
  let envUrl: string;
  beforeAll(async () => {
    harness = await startHarness({ script });
    env = new LeaseEnvServer(4);
    envUrl = await env.start();
  });
  afterAll(async () => {
    await harness?.close();
    await env?.close();
  });

  it("runs each held-out task k times as side turns and reports the outcome rate and pass@k", async () => {
    const tasks: Task[] = [
      { key: "math:add-2-3", meta: { task_name: "math", task_path: "add-2-3", a: 2, b: 3 } },
      { key: "math:sloppy", meta: { task_name: "math", task_path: "sloppy", a: 7, b: 1 } },
    ];
    const plan = { proxyUrl: harness.url, apiKey: undefined, model: "qwen3-4b", environment: new EnvironmentClient(envUrl, { capacityBackoffMs: 10 }), tasks, k: 3, maxSteps: 4, concurrency: 2, contextTokens: 32_768 };
    const { metrics, results } = await evaluateEpisodes(plan, "5", new AbortController().signal);
    expect(results).toHaveLength(6);
    expect(metrics).toMatchObject({ tasks: 2, episodes: 6, failed: 0, outcomeRate: 0.5, k: 3, passAtK: 0.5 });
    expect(metrics.outcomeCi!.low).toBeLessThan(0.5);
    expect(metrics.outcomeCi!.high).toBeGreaterThan(0.5);
    const starts = harness.events.filter((event) => event.type === "turn-start");
    expect(starts).toHaveLength(12); // (a tool call, then the answer, per episode)
    expect(starts.every((event) => event.type === "turn-start" && event.turnType === "side")).toBe(true);
    expect(harness.events.some((event) => ["turn-closed", "turn-judged", "episode-start", "episode-end"].includes(event.type))).toBe(false);
    expect(harness.closed).toEqual([]);
  });

  it("pass@k and the outcome rate on fixed results; failed episodes and tasks short of k samples are left out", () => {
    const result = (taskKey: string, score: number | null) => ({ episodeId: "e", groupId: "g", taskKey, steps: 1, ended: "no-tool-call" as const, score, failure: score === null ? "x" : null });
    const metrics = episodeMetrics([result("a", 1), result("a", 0), result("b", 0), result("b", 0), result("c", 1), result("c", null)], 3, 2);
    expect(metrics).toMatchObject({ tasks: 3, episodes: 6, failed: 1, outcomeRate: 2 / 5, k: 2, passAtK: 0.5 }); // (a passes, b not; c has 1 scored < k)
  });
});
