// Episodes through the proxy: the driver runs tasks of a lease-protocol environment (the test server speaks the
// reference's protocol), each step a chat request with X-Episode-Id / X-Task-Id generated and captured as any turn,
// the tool's observation the step's next state, the outcome reported to POST /v1/episodes/{id}/outcome. Also the
// route's refusals (unknown, ended, bad body, a step in flight) and a harness reporting its own episode.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../contracts/events.ts";
import { EnvironmentClient } from "../../orchestrator/episodes/environment-client.ts";
import { EpisodeDriver, type EpisodeResult } from "../../orchestrator/episodes/episode-driver.ts";
import type { AdmissionQuestion } from "../../orchestrator/episodes/rollout-budget.ts";
import type { Task } from "../../orchestrator/episodes/task-file.ts";
import { startHarness, type Harness } from "../proxy/harness.ts";
import { LeaseEnvServer } from "./lease-env-server.ts";
import { testDriver } from "./test-driver.ts";

const ADD_CALL = '<think>\nI should add.\n</think>\n\n<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>';
const WRONG_CALL = '<think>\nI should add.\n</think>\n\n<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 4}}\n</tool_call>';
const ANSWER = "<think>\nThe tool said 5.\n</think>\n\nThe answer is 5.";
/** A call whose arguments are a JSON string, not an object: unparseable as the reference counts them. */
const GARBLED_CALL = '<think>\nI should add.\n</think>\n\n<tool_call>\n{"name": "add", "arguments": "two and three"}\n</tool_call>';

/** The stand-in model: calls `add` with 2 and 3 (2 and 4 when asked about 7 + 1: wrong; garbled about 9 + 9), then answers. */
function script(prompt: string): string {
  if (prompt.includes("9 + 9")) return GARBLED_CALL;
  if (prompt.includes("<tool_response>")) return ANSWER;
  return prompt.includes("7 + 1") ? WRONG_CALL : ADD_CALL;
}

let harness: Harness | null = null;
let env: LeaseEnvServer | null = null;
afterEach(async () => {
  await harness?.close();
  await env?.close();
  harness = env = null;
});

async function setUp(slots = 4) {
  harness = await startHarness({ script });
  env = new LeaseEnvServer(slots);
  const envUrl = await env.start();
  return { harness, env, envUrl };
}

const driver = testDriver;

const ofType = <T extends RunEvent["type"]>(events: RunEvent[], type: T) => events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);

async function until(check: () => boolean, ms = 5000): Promise<void> {
  for (let waited = 0; !check() && waited < ms; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("the episode driver through the proxy", () => {
  it("runs a task group: steps captured with their episode, the tool's observation as next state, the outcome reported", async () => {
    const { harness, env, envUrl } = await setUp();
    const task: Task = { key: "math:add-2-3", meta: { task_name: "math", task_path: "add-2-3", a: 2, b: 3 } };
    const results = await driver(harness.url, envUrl, [task]).run();

    expect(results.map((result) => [result.episodeId, result.steps, result.ended, result.score]).sort()).toEqual([
      ["math:add-2-3:run1:0:0", 2, "no-tool-call", 1],
      ["math:add-2-3:run1:0:1", 2, "no-tool-call", 1],
    ]);
    // the protocol, in order, for one lease; every lease closed
    const routes = env.log.filter((route) => route !== "/heartbeat");
    expect(routes.filter((route) => route === "/allocate")).toHaveLength(2);
    expect(routes.filter((route) => route === "/close")).toHaveLength(2);
    expect(env.leases.size).toBe(0);
    // run_ctx and task_timeouts as the reference's generate sends them (custom_types.py RunContext, TaskTimeouts@0d034dd5)
    expect(env.resets.map((body) => [body.run_ctx, body.task_timeouts]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([0, 1].map((sample) => [
      { uid: `run1-0-${sample}`, group_index: 0, sample_index: sample, episode_id: `math:add-2-3:run1:0:${sample}`, group_id: "math:add-2-3:run1:0" },
      { ensure_image: 300, reset_session: 300, close_session: 60, eval: 600 },
    ]));

    await until(() => harness.closed.length === 4);
    const steps = harness.closed.filter((turn) => turn.episode?.id === "math:add-2-3:run1:0:0").sort((a, b) => a.turn - b.turn);
    expect(steps.map((turn) => [turn.turn, turn.episode?.groupId, turn.closedBy, turn.nextState?.role ?? null])).toEqual([
      [0, "math:add-2-3:run1:0", "next-request", "tool"],
      [1, "math:add-2-3:run1:0", "session-done", null],
    ]);
    expect(steps[0]!.nextState!.text).toContain("5");
    expect(steps[0]!.response.tool_calls?.[0]?.function).toEqual({ name: "add", arguments: '{"a": 2, "b": 3}' });
    expect(steps[0]!.decidedBy).toMatchObject({ session: "header:x-episode-id", turnType: "episode-step" });
    // token-exact: the captured response is what the engine generated
    expect(await harness.tokenizer.decode(steps[1]!.responseIds, { skipSpecialTokens: false })).toBe(`${ANSWER}<|im_end|>`);

    const ends = ofType(harness.events, "episode-end").sort((a, b) => a.episodeId.localeCompare(b.episodeId));
    expect(ends.map((end) => [end.episodeId, end.groupId, end.score, end.failure, end.steps])).toEqual([
      ["math:add-2-3:run1:0:0", "math:add-2-3:run1:0", 1, null, 2],
      ["math:add-2-3:run1:0:1", "math:add-2-3:run1:0", 1, null, 2],
    ]);
    expect(ofType(harness.events, "episode-start")).toHaveLength(2);
    // turns.jsonl says which episode and group each step belongs to
    await until(() => existsSync(path.join(harness.recordsDir, "turns.jsonl")) && readFileSync(path.join(harness.recordsDir, "turns.jsonl"), "utf8").trim().split("\n").length === 4);
    const lines = readFileSync(path.join(harness.recordsDir, "turns.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { episode?: unknown; session_id: string });
    expect(lines.every((line) => JSON.stringify(line.episode) === JSON.stringify({ id: line.session_id, group_id: "math:add-2-3:run1:0" }))).toBe(true);
  });

  it("the last step's tool results, sent with the outcome, are its next state (an episode cut at max_steps)", async () => {
    const { harness, envUrl } = await setUp();
    const task: Task = { key: "math:sloppy", meta: { task_name: "math", task_path: "sloppy", a: 7, b: 1 } };
    const results = await driver(harness.url, envUrl, [task], { samplesPerTask: 1, maxSteps: 1 }).run();
    expect(results).toMatchObject([{ steps: 1, ended: "max-steps", score: 0 }]);
    await until(() => harness.closed.length === 1);
    expect(harness.closed[0]).toMatchObject({ closedBy: "session-done", nextState: { role: "tool", text: expect.stringContaining("6") } });
  });

  it("an episode ended by three unparseable tool calls is failed without an evaluation, as the reference's (the episode book never trains a failed episode's steps)", async () => {
    const { harness, env, envUrl } = await setUp();
    const task: Task = { key: "math:garbled", meta: { task_name: "math", task_path: "garbled", a: 9, b: 9 } };
    const results = await driver(harness.url, envUrl, [task], { samplesPerTask: 1 }).run();
    expect(results).toMatchObject([{ steps: 3, ended: "parse-errors", score: null, failure: "3 tool calls in a row whose arguments were not a JSON object" }]);
    expect(env.log).not.toContain("/evaluate");
    expect(env.leases.size).toBe(0);
    await until(() => ofType(harness.events, "episode-end").length === 1);
    expect(ofType(harness.events, "episode-end")[0]).toMatchObject({ score: null, failure: expect.stringContaining("not a JSON object"), steps: 3 });
  });

  it("an episode that fails at /reset (the reference's pool answers 500 when its environment cannot start the task) is told, with the endpoint and the server's message, after the reference's 10 tries", async () => {
    const { harness, env, envUrl } = await setUp();
    const early: EpisodeResult[] = [];
    const task: Task = { key: "math:missing", meta: { task_name: "math", task_path: "missing" } };
    const results = await driver(harness.url, envUrl, [task], { samplesPerTask: 1, onFailedBeforeSteps: (result) => early.push(result) }).run();
    expect(results).toMatchObject([{ steps: 0, ended: "failed", score: null, failure: expect.stringMatching(/\/reset answered 500, ok false: task missing has no numbers a and b \(after 10 tries\)/) }]);
    expect(early).toEqual(results);
    expect(env.log.filter((route) => route === "/reset")).toHaveLength(10);
    expect(env.leases.size).toBe(0); // closed all the same
  });

  it("an environment that fails the evaluation: the lease is still closed and the episode reported as failed", async () => {
    const { harness, env, envUrl } = await setUp();
    const task: Task = { key: "math:broken", meta: { task_name: "math", task_path: "broken", a: 2, b: 3 } };
    const original = env["route"].bind(env);
    // /evaluate answers ok:false (the reference marks such a trajectory FAILED)
    env["route"] = async (request: import("node:http").IncomingMessage, response: import("node:http").ServerResponse) => {
      if (request.url === "/evaluate") {
        env.log.push("/evaluate");
        response.writeHead(500, { "content-type": "application/json" });
        return void response.end(JSON.stringify({ ok: false, error: "grader crashed" }));
      }
      return original(request, response);
    };
    const results: EpisodeResult[] = await driver(harness.url, envUrl, [task], { samplesPerTask: 1 }).run();
    expect(results[0]).toMatchObject({ ended: "failed", score: null, failure: expect.stringContaining("grader crashed") });
    expect(env.leases.size).toBe(0);
    await until(() => ofType(harness.events, "episode-end").length === 1);
    expect(ofType(harness.events, "episode-end")[0]).toMatchObject({ score: null, failure: expect.stringContaining("grader crashed"), steps: 2 });
  });
});

describe("POST /v1/episodes/{id}/outcome", () => {
  const post = (url: string, route: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${route}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });

  it("a harness's own episode: steps with X-Episode-Id and X-Task-Id, then the outcome; refusals change nothing", async () => {
    harness = await startHarness({ script });
    const url = harness.url;
    const step = (id: string, messages: unknown[]) =>
      post(url, "/v1/chat/completions", { messages, tools: [{ type: "function", function: { name: "add", parameters: { type: "object", properties: {} } } }] }, { "x-episode-id": id, "x-task-id": "swe:task-7" });

    expect((await post(url, "/v1/episodes/nobody/outcome", { score: 1 })).status).toBe(404);
    const first = await step("ep-1", [{ role: "user", content: "What is 2 + 3?" }]);
    expect(first.status).toBe(200);
    // bad bodies: 400 naming what is expected, nothing ended
    for (const bad of [{ score: 2 }, { score: "1" }, {}, { score: 1, extra: true }, "not json"]) {
      const answer = await post(url, "/v1/episodes/ep-1/outcome", bad);
      expect(answer.status, JSON.stringify(bad)).toBe(400);
    }
    expect(ofType(harness.events, "episode-end")).toHaveLength(0);

    const ok = await post(url, "/v1/episodes/ep-1/outcome", { score: 0.75 });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, episode_id: "ep-1", group_id: "swe:task-7", steps: 1, score: 0.75, failed: null });
    expect(ofType(harness.events, "episode-end")).toMatchObject([{ episodeId: "ep-1", groupId: "swe:task-7", score: 0.75, steps: 1 }]);
    // twice: 409; a step after the outcome: 400 naming the header
    expect((await post(url, "/v1/episodes/ep-1/outcome", { score: 1 })).status).toBe(409);
    const late = await step("ep-1", [{ role: "user", content: "again" }]);
    expect(late.status).toBe(400);
    expect(((await late.json()) as { error: { param: string } }).error.param).toBe("x-episode-id");
    await until(() => harness!.closed.length === 1);
    expect(harness.closed[0]).toMatchObject({ episode: { id: "ep-1", groupId: "swe:task-7" }, closedBy: "session-done" });
  });

  it("refuses the outcome while a step is still being generated", async () => {
    harness = await startHarness({ script, tokenDelayMs: 30 });
    const url = harness.url;
    const body = { messages: [{ role: "user", content: "What is 2 + 3?" }], tools: [{ type: "function", function: { name: "add", parameters: { type: "object", properties: {} } } }] };
    await post(url, "/v1/chat/completions", body, { "x-episode-id": "ep-2" }); // the first step completes
    const second = post(url, "/v1/chat/completions", { ...body, messages: [...body.messages, { role: "assistant", content: "x" }, { role: "user", content: "go on" }] }, { "x-episode-id": "ep-2" });
    await until(() => ofType(harness!.events, "turn-start").length === 2);
    const early = await post(url, "/v1/episodes/ep-2/outcome", { score: 1 });
    expect(early.status).toBe(409);
    expect(((await early.json()) as { error: { code: string } }).error.code).toBe("episode_step_in_flight");
    expect((await second).status).toBe(200);
    expect((await post(url, "/v1/episodes/ep-2/outcome", { score: 1 })).status).toBe(200);
    // (no X-Task-Id, and the id is not task_key:uid:group:sample: the episode is a group of its own)
    expect(ofType(harness.events, "episode-end")[0]).toMatchObject({ groupId: "ep-2", steps: 2 });
  });

  it("method opd refuses episode steps, naming the header", async () => {
    harness = await startHarness({ script, recipe: { method: "opd" } });
    const answer = await post(harness.url, "/v1/chat/completions", { messages: [{ role: "user", content: "hi" }] }, { "x-episode-id": "ep-3" });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: { param: "x-episode-id", message: expect.stringContaining("method opd") } });
  });
});

describe("stopping the driver", () => {
  it("closes every lease it holds when stopped mid-episode, and waits for the engines before starting", async () => {
    const slow = await startHarness({ script, tokenDelayMs: 40 });
    harness = slow;
    env = new LeaseEnvServer(4);
    const envUrl = await env.start();
    const stop = new AbortController();
    let ready = false;
    const task: Task = { key: "math:stop", meta: { task_name: "math", task_path: "stop", a: 2, b: 3 } };
    const running = new EpisodeDriver({
      proxyUrl: slow.url,
      apiKey: undefined,
      model: "qwen3-4b",
      environment: new EnvironmentClient(envUrl, { signal: stop.signal }),
      tasks: [task],
      samplesPerTask: 2,
      maxSteps: 5,
      concurrency: 2,
      epochs: 1,
      contextTokens: 32_768,
      uid: "run2",
      ready: () => ready,
      signal: stop.signal,
    }).run();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(env.log).toEqual([]); // not ready: nothing allocated
    ready = true;
    await until(() => ofType(slow.events, "turn-start").length >= 2);
    stop.abort();
    const results = await running;
    expect(results.every((result) => result.ended === "failed")).toBe(true);
    expect(env.log.filter((route) => route === "/close")).toHaveLength(2);
    expect(env.leases.size).toBe(0);
  });
});

describe("the driver's admission of task groups (the rollout budget)", () => {
  it("starts a new group only when admitted, always finishes a started one, and tells the plan first", async () => {
    const { harness, envUrl } = await setUp(8);
    const tasks: Task[] = ["a", "b", "c"].map((name) => ({ key: `math:${name}`, meta: { task_name: "math", task_path: name, a: 2, b: 3 } }));
    let admit = false;
    const questions: AdmissionQuestion[] = [];
    const started: string[] = [];
    let planned = 0;
    const running = driver(harness.url, envUrl, tasks, {
      concurrency: 6,
      samplesPerTask: 2,
      admitPollMs: 20,
      onPlan: (count) => (planned = count),
      admitGroup: (question) => {
        questions.push(question);
        return question.running === 0 && (questions.length === 1 || admit);
      },
      onEpisode: (result) => started.push(result.groupId),
    }).run();
    // the first group runs (admitted once, nothing running); the second waits while admission says no
    await until(() => started.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started.map((group) => group.split(":").at(-1))).toEqual(["0", "0"]);
    expect(ofType(harness.events, "turn-start").every((event) => event.sessionId.includes(":run1:0:"))).toBe(true);
    admit = true;
    const results = await running;
    expect(planned).toBe(6);
    expect(results).toHaveLength(6);
    // groups ran one after another: each asked with nothing running, and with the steps the finished episodes took
    expect(started.map((group) => group.split(":").at(-1))).toEqual(["0", "0", "1", "1", "2", "2"]);
    expect(questions.at(-1)).toEqual({ running: 0, runningSamples: 0, groupSamples: 4 });
  });
});

describe("the built-in terminal environment through the driver", () => {
  it("a shell task solved in the sandbox scores 1; one left undone scores 0; the leases are closed", async () => {
    const { startEnvironmentServer } = await import("../../environments/environment-server.ts");
    const server = await startEnvironmentServer({ kind: "terminal", host: "127.0.0.1", port: 0, slots: 2 });
    try {
      // the model: writes hello.txt when asked (the first task), does nothing for any other task
      harness = await startHarness({
        script: (prompt) =>
          prompt.includes("<tool_response>") || !prompt.includes("hello.txt")
            ? "<think>\nDone.\n</think>\n\nDone."
            : '<think>\nI write the file.\n</think>\n\n<tool_call>\n{"name": "run_command", "arguments": {"command": "echo hi > hello.txt"}}\n</tool_call>',
      });
      const lines = readFileSync(path.resolve(import.meta.dirname, "../../environments/terminal/tasks.jsonl"), "utf8").trim().split("\n").slice(0, 2);
      const tasks = lines.map((line) => {
        const meta = (JSON.parse(line) as { task_meta: Record<string, string> }).task_meta;
        return { key: `${meta.task_name}:${meta.task_path}`, meta };
      });
      const results = await driver(harness.url, server.url, tasks, { samplesPerTask: 1 }).run();
      expect(results.map((result) => [result.taskKey, result.steps, result.ended, result.score]).sort()).toEqual([
        ["terminal:count-lines", 1, "no-tool-call", 0],
        ["terminal:hello-file", 2, "no-tool-call", 1],
      ]);
      const status = (await (await fetch(`${server.url}/status`)).json()) as { leases: number };
      expect(status.leases).toBe(0);
    } finally {
      await server.close();
    }
  });
});
