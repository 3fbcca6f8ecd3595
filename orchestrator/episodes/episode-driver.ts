// Runs general-agent episodes against an environment server (the reference's lease protocol) through the proxy, as
// any harness would: each step is a chat request with X-Episode-Id and X-Task-Id (so it is generated and captured
// token-exactly, judged from its next state like any turn), tool calls go to /exec_tool, heartbeats keep the lease,
// and the outcome (/evaluate's score, or the failure) is reported to POST /v1/episodes/{id}/outcome. The lease is
// closed always: on errors and at stop too. Rewards and samples are judging's (episode-book.ts).
import { z } from "zod";
import { toolCallSchema, toolSchema, type ChatMessage, type Tool } from "../../contracts/chat.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { sleepUnlessAborted } from "../../lib/abortable-sleep.ts";
import type { EpisodeEnvironment } from "./episode-environment.ts";
import type { AdmissionQuestion } from "./rollout-budget.ts";
import { episodeId, type Task } from "./task-file.ts";

/** The reference's per-task timeouts in seconds, sent with every reset (its TaskTimeouts). */
export const REFERENCE_TASK_TIMEOUTS = { ensure_image: 300, reset_session: 300, close_session: 60, eval: 600 } as const;

export interface EpisodeDriverOptions {
  /** The proxy's base URL (http://host:port) and its key. */
  proxyUrl: string;
  apiKey: string | undefined;
  model: string;
  environment: EpisodeEnvironment;
  tasks: readonly Task[];
  samplesPerTask: number;
  maxSteps: number;
  concurrency: number;
  epochs: number;
  /** Most tokens of prompt + answer; an episode whose next step would not fit ends (the reference's context cap). */
  contextTokens: number;
  /** The run's id: the `uid` of every episode id, so ids of two runs never meet. */
  uid: string;
  /** Consecutive tool calls with arguments that are not JSON after which the episode ends (the reference: 3). */
  maxParseErrors?: number;
  heartbeatMs?: number;
  /** Whether the engines take requests (the traffic gate); an episode starts only when they do. Default: always. */
  ready?: () => boolean;
  /**
   * Whether the next task group may start now (rollout-budget.ts: so that its samples are trained before they go
   * stale); asked again every admitPollMs while it says no. A started group's episodes always run. Default: always.
   */
  admitGroup?: (question: AdmissionQuestion) => boolean;
  admitPollMs?: number;
  /** Told once before the first episode: how many episodes the run plans (tasks × samples_per_task × epochs). */
  onPlan?(planned: number): void;
  signal: AbortSignal;
  /** Told of every finished episode (for logs and tests). */
  onEpisode?(result: EpisodeResult): void;
  /**
   * Told of an episode that failed before its first step (at allocate or reset): it has no step for the proxy to
   * know it by, so its outcome cannot go through POST /v1/episodes/{id}/outcome; the run reports it itself.
   */
  onFailedBeforeSteps?(result: EpisodeResult): void;
  /**
   * Held-out evaluation (orchestrator/evaluation/): each step is a side turn (X-Turn-Type: side, the episode id as its
   * X-Session-Id), not a step of the run's episodes: never judged, never trained, and no outcome is reported.
   */
  sideTurns?: boolean;
}

export interface EpisodeResult {
  episodeId: string;
  groupId: string;
  taskKey: string;
  steps: number;
  /** Why the episode stopped taking steps. */
  ended: "no-tool-call" | "environment-done" | "max-steps" | "parse-errors" | "context-limit" | "truncated" | "failed";
  score: number | null;
  failure: string | null;
}

/** What a non-streamed chat completion of the proxy answers, as far as the driver reads it. */
const completionSchema = z
  .object({
    choices: z
      .array(
        z
          .object({
            message: z.object({ content: z.string().nullable().optional(), reasoning_content: z.string().nullable().optional(), tool_calls: z.array(toolCallSchema).nullable().optional() }).passthrough(),
            finish_reason: z.string().nullable(),
          })
          .passthrough(),
      )
      .min(1),
    usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).passthrough().optional(),
  })
  .passthrough();

export class EpisodeDriver {
  private readonly maxParseErrors: number;
  private readonly heartbeatMs: number;

  constructor(private readonly options: EpisodeDriverOptions) {
    this.maxParseErrors = options.maxParseErrors ?? 3;
    this.heartbeatMs = options.heartbeatMs ?? 30_000;
  }

  /**
   * Every epoch × task × sample, `concurrency` at a time, a task group's episodes next to each other; a new group
   * starts only when admitGroup says so.
   */
  async run(): Promise<EpisodeResult[]> {
    const { tasks, samplesPerTask, epochs, concurrency, signal } = this.options;
    const queue: { task: Task; group: number; sample: number }[] = [];
    for (let epoch = 0; epoch < epochs; epoch++) {
      tasks.forEach((task, index) => {
        for (let sample = 0; sample < samplesPerTask; sample++) queue.push({ task, group: epoch * tasks.length + index, sample });
      });
    }
    this.options.onPlan?.(queue.length);
    const results: EpisodeResult[] = [];
    const started = new Set<number>();
    const running = { episodes: 0 };
    const recentSteps: number[] = []; // steps of the latest scored episodes, at most one group's worth
    const worker = async (): Promise<void> => {
      while (!signal.aborted) {
        // (engines starting, or paused: an episode begun now would fail its first step)
        while (this.options.ready && !this.options.ready()) if (!(await sleepUnlessAborted(1000, signal))) return;
        const next = queue[0];
        if (!next) return;
        if (!started.has(next.group) && !this.admits(running.episodes, recentSteps)) {
          if (!(await sleepUnlessAborted(this.options.admitPollMs ?? 250, signal))) return;
          continue;
        }
        started.add(next.group);
        queue.shift();
        running.episodes += 1;
        const result = await this.runEpisode(next.task, next.group, next.sample).finally(() => (running.episodes -= 1));
        results.push(result);
        if (result.score !== null && recentSteps.push(result.steps) > samplesPerTask) recentSteps.shift();
        this.options.onEpisode?.(result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
    return results;
  }

  /**
   * Whether a new group may start, asked with the samples expected of the running episodes and of the group: steps
   * per episode as the latest group's worth of scored episodes took on average (the policy changes, and with it how
   * many steps it takes). Before any finished, only when nothing runs.
   */
  private admits(running: number, recentSteps: readonly number[]): boolean {
    if (!this.options.admitGroup) return true;
    if (recentSteps.length === 0) return running === 0 && this.options.admitGroup({ running, runningSamples: 0, groupSamples: 0 });
    const stepsPerEpisode = recentSteps.reduce((sum, steps) => sum + steps, 0) / recentSteps.length;
    return this.options.admitGroup({ running, runningSamples: running * stepsPerEpisode, groupSamples: this.options.samplesPerTask * stepsPerEpisode });
  }

  /** One episode, start to outcome; never throws (a failure is the result's). */
  async runEpisode(task: Task, group: number, sample: number): Promise<EpisodeResult> {
    const id = episodeId(task.key, this.options.uid, group, sample);
    const groupId = `${task.key}:${this.options.uid}:${group}`;
    const environment = this.options.environment;
    const result: EpisodeResult = { episodeId: id, groupId, taskKey: task.key, steps: 0, ended: "failed", score: null, failure: null };
    const messages: ChatMessage[] = [];
    let lease: string | null = null;
    let heartbeat: NodeJS.Timeout | null = null;
    try {
      lease = await environment.allocate(task.key, id);
      const leaseId = lease;
      heartbeat = setInterval(() => void environment.heartbeat(leaseId).catch(() => undefined), this.heartbeatMs);
      heartbeat.unref();
      // run_ctx as the reference's generate sends it. Its pool names the trial and Docker container
      // `{task_name}.{uid}.slime-run`, so the uid is one per sample, the episode's `uid-group-sample` (a run-wide uid
      // would give every sample of a task one container, stopped by the first close).
      const runContext = { uid: `${this.options.uid}-${group}-${sample}`, group_index: group, sample_index: sample, episode_id: id, group_id: groupId };
      const reset = await environment.reset(leaseId, task.meta, runContext, REFERENCE_TASK_TIMEOUTS);
      const tools = parseTools(reset.toolSchemas, task.key);
      messages.push({ role: "user", content: reset.userMessage });
      result.ended = await this.steps(id, groupId, leaseId, messages, tools, result);
      // as the reference: an episode ended by unparseable tool calls is failed, not evaluated, and its steps are not
      // trained
      if (result.ended === "parse-errors") result.failure = `${this.maxParseErrors} tool calls in a row whose arguments were not a JSON object`;
      else result.score = await environment.evaluate(leaseId);
    } catch (error) {
      result.ended = "failed";
      result.failure = (error as Error).message;
    } finally {
      if (heartbeat) clearInterval(heartbeat);
      if (lease !== null) await environment.close(lease).catch(() => undefined); // (the server reaps it otherwise)
    }
    if (!this.options.sideTurns) {
      if (result.steps > 0) await this.reportOutcome(id, result, messages);
      else this.options.onFailedBeforeSteps?.(result);
    }
    return result;
  }

  /** Takes steps until the model calls no tool, the environment says done, max_steps, repeated bad arguments, or the context limit. */
  private async steps(id: string, groupId: string, lease: string, messages: ChatMessage[], tools: Tool[], result: EpisodeResult): Promise<EpisodeResult["ended"]> {
    let parseErrors = 0;
    for (let step = 0; step < this.options.maxSteps; step++) {
      const answer = await this.chat(id, groupId, messages, tools);
      result.steps += 1;
      const choice = answer.choices[0]!;
      const calls = choice.message.tool_calls ?? [];
      messages.push({ role: "assistant", content: choice.message.content ?? null, ...(choice.message.reasoning_content ? { reasoning_content: choice.message.reasoning_content } : {}), ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      if (choice.finish_reason === "length") return "truncated";
      if (calls.length === 0) return "no-tool-call";
      for (const call of calls) {
        let observation: string;
        let parsed: unknown;
        try {
          parsed = JSON.parse(call.function.arguments);
        } catch {
          parsed = undefined;
        }
        if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
          parseErrors += 1;
          observation = `error: the arguments of ${call.function.name} are not a JSON object: ${call.function.arguments.slice(0, 200)}`;
        } else {
          parseErrors = 0;
          observation = await this.options.environment.execTool(lease, { name: call.function.name, arguments: parsed as Record<string, unknown> });
        }
        messages.push({ role: "tool", tool_call_id: call.id, content: observation });
      }
      if (parseErrors >= this.maxParseErrors) return "parse-errors";
      if (this.options.environment.finished?.(lease)) return "environment-done";
      const used = (answer.usage?.prompt_tokens ?? 0) + (answer.usage?.completion_tokens ?? 0);
      if (answer.usage && used >= this.options.contextTokens) return "context-limit";
    }
    return "max-steps";
  }

  private async chat(id: string, groupId: string, messages: ChatMessage[], tools: Tool[]): Promise<z.infer<typeof completionSchema>> {
    const headers: Record<string, string> = this.options.sideTurns ? { "x-turn-type": "side", "x-session-id": id } : { "x-episode-id": id, "x-task-id": groupId };
    const response = await this.post("/v1/chat/completions", { model: this.options.model, messages, ...(tools.length > 0 ? { tools } : {}) }, headers);
    const parsed = completionSchema.safeParse(response);
    if (!parsed.success) throw new OpenclawRlError("INTERNAL", `the proxy answered a step of ${id} without a chat completion: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  /** The outcome, with the messages after the last step (its tool results: the last step's next state). */
  private async reportOutcome(id: string, result: EpisodeResult, messages: ChatMessage[]): Promise<void> {
    const body = result.score !== null ? { score: result.score, messages } : { failed: result.failure ?? "the episode failed", messages };
    try {
      await this.post(`/v1/episodes/${encodeURIComponent(id)}/outcome`, body, {});
    } catch (error) {
      result.failure ??= `the outcome was not reported: ${(error as Error).message}`;
    }
  }

  /** POSTs to the proxy; a 503 (engines not ready, a weight update) is waited out as its Retry-After says, up to 10 minutes. */
  private async post(route: string, body: unknown, headers: Record<string, string>): Promise<unknown> {
    const deadline = Date.now() + 600_000;
    let response: Response;
    for (;;) {
      response = await fetch(`${this.options.proxyUrl}${route}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}), ...headers },
        body: JSON.stringify(body),
        signal: this.options.signal,
      });
      if (response.status !== 503 || Date.now() > deadline) break;
      await response.body?.cancel();
      const waitS = Math.min(30, Math.max(1, Number(response.headers.get("retry-after")) || 5));
      if (!(await sleepUnlessAborted(waitS * 1000, this.options.signal))) break;
    }
    const text = await response.text();
    if (!response.ok) throw new OpenclawRlError("ENVIRONMENT_ERROR", `${route} answered ${response.status}: ${text.slice(0, 300)}`, { path: route, retryable: response.status >= 500 });
    return JSON.parse(text) as unknown;
  }
}

/** The environment's tool schemas as OpenAI function tools; one that is not is the environment's error. */
function parseTools(schemas: readonly unknown[], taskKey: string): Tool[] {
  const parsed = z.array(toolSchema).safeParse(schemas);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new OpenclawRlError("ENVIRONMENT_ERROR", `/reset of ${taskKey} gave tool_schemas that are not OpenAI function tools: ${issue.path.join(".")}: ${issue.message}`, { path: "tool_schemas" });
  }
  return parsed.data;
}
