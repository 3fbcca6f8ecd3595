// POSTs to an environment server the way the reference's clients do (slime's http_utils.post: every failure to reach
// the server or HTTP error tried again after a pause, up to a count per endpoint), each answer checked with zod.
// Typed errors name the URL and the server's own words. Knows no protocol: the clients say which route is which.
import type { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { sleepUnlessAborted } from "../../lib/abortable-sleep.ts";

export interface EnvironmentHttpOptions {
  /** Per request (the reference allows 300 s for a reset, 600 s for an evaluation; one bound here). */
  timeoutMs?: number;
  /** Tries of /allocate while the server answers that it is full (the reference's terminal client: 100). */
  capacityTries?: number;
  capacityBackoffMs?: number;
  /** Between two attempts of a failed call (the reference: 1 s). */
  retryDelayMs?: number;
  signal?: AbortSignal;
}

export interface PostOptions {
  /** Attempts in all while the server cannot be reached or answers an HTTP error. */
  attempts: number;
  /** Whether an answer says the server is full (then "full" is returned, not thrown). */
  full?: (status: number, json: unknown) => boolean;
  /** Whether the run's stop signal cuts the call short (not for /close: a lease is closed at stop too). */
  stoppable?: boolean;
}

type Answer = z.ZodType<{ ok?: boolean; error?: string }>;

export class EnvironmentHttp {
  readonly base: string;
  readonly timeoutMs: number;

  constructor(
    baseUrl: string,
    readonly options: EnvironmentHttpOptions = {},
  ) {
    this.base = baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 600_000;
  }

  async healthy(): Promise<boolean> {
    try {
      return (await fetch(`${this.base}/healthz`, { signal: AbortSignal.timeout(5000) })).ok;
    } catch {
      return false;
    }
  }

  /** POSTs until the server has room: "full" answers are waited out capacityTries times, then an error names it. */
  async postUntilRoom<S extends Answer>(route: string, body: unknown, schema: S, options: PostOptions & { full: PostOptions["full"] }): Promise<z.infer<S>> {
    const tries = this.options.capacityTries ?? 100;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.post(route, body, schema, options);
      if (outcome !== "full") return outcome;
      if (attempt >= tries) {
        throw new OpenclawRlError("ENVIRONMENT_ERROR", `${this.base}${route}: the environment stayed full through ${attempt} tries`, {
          path: `${this.base}${route}`,
          retryable: true,
          hint: "lower episodes.concurrency, or give the environment server more capacity",
        });
      }
      if (!(await sleepUnlessAborted(this.options.capacityBackoffMs ?? 1000, this.options.signal ?? new AbortController().signal))) {
        throw new OpenclawRlError("ENVIRONMENT_ERROR", `${this.base}${route}: stopped while waiting for room`, { path: `${this.base}${route}` });
      }
    }
  }

  /**
   * POST `body` to `route`, the answer checked by `schema`; "full" when options.full says so. An unreachable server or
   * an HTTP error is tried again, options.attempts times in all; the last error is thrown, naming the tries.
   */
  async post<S extends Answer>(route: string, body: unknown, schema: S, options: PostOptions): Promise<z.infer<S> | "full"> {
    const stoppable = options.stoppable ?? true;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.postOnce(route, body, schema, options, stoppable);
      } catch (error) {
        const again = error instanceof OpenclawRlError && error.retryable && attempt < options.attempts && !(stoppable && this.options.signal?.aborted);
        if (!again) {
          if (error instanceof OpenclawRlError && options.attempts > 1 && attempt > 1) error.message = `${error.message} (after ${attempt} tries)`;
          throw error;
        }
        const wait = sleepUnlessAborted(this.options.retryDelayMs ?? 1000, stoppable ? (this.options.signal ?? new AbortController().signal) : new AbortController().signal);
        if (!(await wait)) throw error;
      }
    }
  }

  private async postOnce<S extends Answer>(route: string, body: unknown, schema: S, options: PostOptions, stoppable: boolean): Promise<z.infer<S> | "full"> {
    const full = options.full;
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
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      if (full?.(response.status, undefined)) return "full";
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`, { path: url, cause, retryable: !response.ok });
    }
    if (full?.(response.status, json)) return "full";
    const parsed = schema.safeParse(json);
    // the server's own words: `error` in the lease protocol, `detail` in a FastAPI HTTPException (the reference's pools)
    const error = (json as { error?: unknown } | null)?.error ?? (json as { detail?: unknown } | null)?.detail;
    const ok = (json as { ok?: unknown } | null)?.ok;
    if (!response.ok || ok !== true) {
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `${url} answered ${response.status}, ok ${String(ok)}${typeof error === "string" ? `: ${error}` : ""}`, {
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
