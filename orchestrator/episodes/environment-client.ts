// A client of an environment server that speaks the reference's lease protocol (contracts/environment.ts):
// allocate (idempotent by request id, retried while the server is full), reset, exec_tool, evaluate, close and
// heartbeat, every answer checked with zod. Typed errors name the endpoint and what was wrong. Knows nothing of
// episodes' steps or rewards.
import type { z } from "zod";
import {
  allocateAnswerSchema,
  evaluateAnswerSchema,
  execToolAnswerSchema,
  plainAnswerSchema,
  resetAnswerSchema,
  type EnvironmentToolCall,
} from "../../contracts/environment.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { sleepUnlessAborted } from "../../lib/abortable-sleep.ts";

export interface EnvironmentClientOptions {
  /** Per request (the reference allows 300 s for a reset, 600 s for an evaluation; one bound here). */
  timeoutMs?: number;
  /** Tries of /allocate while the server answers that it is full (the reference: 100). */
  capacityTries?: number;
  capacityBackoffMs?: number;
  signal?: AbortSignal;
}

export class EnvironmentClient {
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly capacityTries: number;
  private readonly capacityBackoffMs: number;

  constructor(
    baseUrl: string,
    private readonly options: EnvironmentClientOptions = {},
  ) {
    this.base = baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 600_000;
    this.capacityTries = options.capacityTries ?? 100;
    this.capacityBackoffMs = options.capacityBackoffMs ?? 1000;
  }

  async healthy(): Promise<boolean> {
    try {
      const response = await fetch(`${this.base}/healthz`, { signal: AbortSignal.timeout(5000) });
      return response.ok;
    } catch {
      return false;
    }
  }

  /** A lease for one episode of `taskKey` (`task_name:task_path`); `requestId` makes a retried call get the same lease. */
  async allocate(taskKey: string, requestId: string): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.call("/allocate", { task_key: taskKey, request_id: requestId }, allocateAnswerSchema, true);
      if (outcome !== "full") return outcome.lease_id;
      if (attempt >= this.capacityTries) {
        throw new OpenclawRlError("ENVIRONMENT_ERROR", `${this.base}/allocate: the environment stayed full through ${attempt} tries`, {
          path: `${this.base}/allocate`,
          retryable: true,
          hint: "lower episodes.concurrency, or give the environment server more capacity",
        });
      }
      if (!(await sleepUnlessAborted(this.capacityBackoffMs, this.options.signal ?? new AbortController().signal))) {
        throw new OpenclawRlError("ENVIRONMENT_ERROR", `${this.base}/allocate: stopped while waiting for room`, { path: `${this.base}/allocate` });
      }
    }
  }

  async reset(leaseId: string, taskMeta: Record<string, unknown>, runCtx: Record<string, unknown> = {}): Promise<{ userMessage: string; toolSchemas: unknown[] }> {
    const answer = await this.call("/reset", { lease_id: leaseId, task_meta: taskMeta, run_ctx: runCtx }, resetAnswerSchema);
    return { userMessage: answer.user_msg, toolSchemas: answer.tool_schemas };
  }

  async execTool(leaseId: string, toolCall: EnvironmentToolCall): Promise<string> {
    return (await this.call("/exec_tool", { lease_id: leaseId, tool_call: toolCall }, execToolAnswerSchema)).observation;
  }

  async evaluate(leaseId: string): Promise<number> {
    return (await this.call("/evaluate", { lease_id: leaseId }, evaluateAnswerSchema)).score;
  }

  async heartbeat(leaseId: string): Promise<void> {
    await this.call("/heartbeat", { lease_id: leaseId }, plainAnswerSchema);
  }

  /** Not cut short by the stop signal: a lease is closed at stop too (bounded by the request timeout). */
  async close(leaseId: string): Promise<void> {
    await this.call("/close", { lease_id: leaseId }, plainAnswerSchema, false, false);
  }

  /** POST `body` to `route`, the answer checked by `schema`; "full" when `capacity` and the server answered 429. */
  private async call<S extends z.ZodType<{ ok: boolean; error?: string }>>(route: string, body: unknown, schema: S, capacity: true): Promise<z.infer<S> | "full">;
  private async call<S extends z.ZodType<{ ok: boolean; error?: string }>>(route: string, body: unknown, schema: S, capacity?: false, stoppable?: boolean): Promise<z.infer<S>>;
  private async call<S extends z.ZodType<{ ok: boolean; error?: string }>>(route: string, body: unknown, schema: S, capacity = false, stoppable = true): Promise<z.infer<S> | "full"> {
    const url = `${this.base}${route}`;
    const signals = [AbortSignal.timeout(this.timeoutMs), ...(this.options.signal && stoppable ? [this.options.signal] : [])];
    let response: Response;
    try {
      response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.any(signals) });
    } catch (cause) {
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `${url}: ${(cause as Error).name === "TimeoutError" ? `no answer in ${this.timeoutMs} ms` : `cannot reach the environment (${(cause as Error).message})`}`, {
        path: url,
        cause,
        retryable: true,
        hint: "is the environment server running at episodes.env_url?",
      });
    }
    const text = await response.text();
    if (capacity && response.status === 429) return "full";
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`, { path: url, cause });
    }
    const parsed = schema.safeParse(json);
    const error = (json as { error?: unknown } | null)?.error;
    if (!response.ok || (json as { ok?: unknown } | null)?.ok !== true) {
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `${url} answered ${response.status}, ok ${String((json as { ok?: unknown } | null)?.ok)}${typeof error === "string" ? `: ${error}` : ""}`, {
        path: url,
        retryable: response.status >= 500,
      });
    }
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `${url} answered without a valid ${issue.path.join(".") || "body"}: ${issue.message}`, { path: url });
    }
    return parsed.data;
  }
}
