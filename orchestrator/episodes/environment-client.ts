// A client of an environment server that speaks the reference's lease protocol (contracts/environment.ts):
// allocate (idempotent by request id, retried while the server is full), reset, exec_tool, evaluate, close and
// heartbeat, each tried as often as the reference's client tries it, every answer checked with zod. Typed errors name
// the endpoint and what was wrong. Knows nothing of episodes' steps or rewards.
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

/**
 * How many times each endpoint is tried when it cannot be reached or answers an HTTP error, as the reference's
 * terminal client does (terminal-rl/env_client.py:16-20@0d034dd5, through slime's http_utils._post: every failure
 * retried after 1 s, up to max_retries attempts). A 200 answer with ok false is final, as there.
 */
export const ENDPOINT_ATTEMPTS = { "/allocate": 100, "/reset": 10, "/heartbeat": 10, "/exec_tool": 3, "/evaluate": 1, "/close": 3 } as const;
type Endpoint = keyof typeof ENDPOINT_ATTEMPTS;

export interface EnvironmentClientOptions {
  /** Per request (the reference allows 300 s for a reset, 600 s for an evaluation; one bound here). */
  timeoutMs?: number;
  /** Tries of /allocate while the server answers that it is full (the reference: 100). */
  capacityTries?: number;
  capacityBackoffMs?: number;
  /** Between two attempts of a failed call (the reference: 1 s). */
  retryDelayMs?: number;
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

  async reset(leaseId: string, taskMeta: Record<string, unknown>, runCtx: Record<string, unknown> = {}, taskTimeouts?: Record<string, number>): Promise<{ userMessage: string; toolSchemas: unknown[] }> {
    const body = { lease_id: leaseId, task_meta: taskMeta, run_ctx: runCtx, ...(taskTimeouts ? { task_timeouts: taskTimeouts } : {}) };
    const answer = await this.call("/reset", body, resetAnswerSchema);
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

  /**
   * POST `body` to `route`, the answer checked by `schema`; "full" when `capacity` and the server answered 429. An
   * unreachable server or an HTTP error is tried again, ENDPOINT_ATTEMPTS[route] times in all; the last error is thrown.
   */
  private async call<S extends z.ZodType<{ ok: boolean; error?: string }>>(route: Endpoint, body: unknown, schema: S, capacity: true): Promise<z.infer<S> | "full">;
  private async call<S extends z.ZodType<{ ok: boolean; error?: string }>>(route: Endpoint, body: unknown, schema: S, capacity?: false, stoppable?: boolean): Promise<z.infer<S>>;
  private async call<S extends z.ZodType<{ ok: boolean; error?: string }>>(route: Endpoint, body: unknown, schema: S, capacity = false, stoppable = true): Promise<z.infer<S> | "full"> {
    const attempts = ENDPOINT_ATTEMPTS[route];
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.callOnce(route, body, schema, capacity, stoppable);
      } catch (error) {
        const again = error instanceof OpenclawRlError && error.retryable && attempt < attempts && !(stoppable && this.options.signal?.aborted);
        if (!again) {
          if (error instanceof OpenclawRlError && attempts > 1 && attempt > 1) error.message = `${error.message} (after ${attempt} tries)`;
          throw error;
        }
        const wait = sleepUnlessAborted(this.options.retryDelayMs ?? 1000, stoppable ? (this.options.signal ?? new AbortController().signal) : new AbortController().signal);
        if (!(await wait)) throw error;
      }
    }
  }

  private async callOnce<S extends z.ZodType<{ ok: boolean; error?: string }>>(route: Endpoint, body: unknown, schema: S, capacity: boolean, stoppable: boolean): Promise<z.infer<S> | "full"> {
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
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`, { path: url, cause, retryable: !response.ok });
    }
    const parsed = schema.safeParse(json);
    // the server's own words: `error` in the lease protocol, `detail` in a FastAPI HTTPException (the reference's pools)
    const error = (json as { error?: unknown } | null)?.error ?? (json as { detail?: unknown } | null)?.detail;
    if (!response.ok || (json as { ok?: unknown } | null)?.ok !== true) {
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `${url} answered ${response.status}, ok ${String((json as { ok?: unknown } | null)?.ok)}${typeof error === "string" ? `: ${error}` : ""}`, {
        path: url,
        // an HTTP error is tried again (as the reference's client does); a 200 with ok false is the server's answer
        retryable: !response.ok,
      });
    }
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `${url} answered without a valid ${issue.path.join(".") || "body"}: ${issue.message}`, { path: url });
    }
    return parsed.data;
  }
}
