// A client of an environment server that speaks the reference's lease protocol (contracts/environment.ts):
// allocate (idempotent by request id, retried while the server is full), reset, exec_tool, evaluate, close and
// heartbeat, each tried as often as the reference's client tries it, every answer checked with zod. Typed errors name
// the endpoint, the server's words and, for the protocol's own errors, what they mean (lease-error-hints.ts).
// Knows nothing of episodes' steps or rewards.
import type { z } from "zod";
import {
  allocateAnswerSchema,
  evaluateAnswerSchema,
  execToolAnswerSchema,
  plainAnswerSchema,
  resetAnswerSchema,
  type EnvironmentToolCall,
} from "../../contracts/environment.ts";
import { EnvironmentHttp, type EnvironmentHttpOptions } from "./environment-http.ts";
import type { EpisodeEnvironment } from "./episode-environment.ts";
import { withLeaseHint } from "./lease-error-hints.ts";

/**
 * How many times each endpoint is tried, 1 s apart, when it cannot be reached or answers an HTTP error: as often as
 * the reference's terminal client (tests/fixtures/terminal-rl/client-attempts.json). A 200 with ok false is final.
 */
export const ENDPOINT_ATTEMPTS = { "/allocate": 100, "/reset": 10, "/heartbeat": 10, "/exec_tool": 3, "/evaluate": 1, "/close": 3 } as const;
type Endpoint = keyof typeof ENDPOINT_ATTEMPTS;

export type EnvironmentClientOptions = EnvironmentHttpOptions;

export class EnvironmentClient implements EpisodeEnvironment {
  private readonly http: EnvironmentHttp;

  constructor(baseUrl: string, options: EnvironmentClientOptions = {}) {
    this.http = new EnvironmentHttp(baseUrl, options);
  }

  async healthy(): Promise<boolean> {
    return this.http.healthy();
  }

  /** A lease for one episode of `taskKey` (`task_name:task_path`); `requestId` makes a retried call get the same lease. */
  async allocate(taskKey: string, requestId: string): Promise<string> {
    try {
      const answer = await this.http.postUntilRoom("/allocate", { task_key: taskKey, request_id: requestId }, allocateAnswerSchema, { attempts: ENDPOINT_ATTEMPTS["/allocate"], full: (status) => status === 429 });
      return answer.lease_id;
    } catch (error) {
      throw withLeaseHint(error);
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
    await this.call("/close", { lease_id: leaseId }, plainAnswerSchema, false);
  }

  private async call<S extends z.ZodType<{ ok: boolean; error?: string }>>(route: Endpoint, body: unknown, schema: S, stoppable = true): Promise<z.infer<S>> {
    try {
      return (await this.http.post(route, body, schema, { attempts: ENDPOINT_ATTEMPTS[route], stoppable })) as z.infer<S>;
    } catch (error) {
      throw withLeaseHint(error);
    }
  }
}
