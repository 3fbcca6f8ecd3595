// A client of the reference's SWE pool for the episode driver, as the reference's SWE rollout drives it: the task's
// container is allocated at reset (/allocate {image, instance_id}, its image is the task's), one tool `bash {command}`
// → /exec, and at the end /diff gives the episode's patch, the agent's container is closed, a fresh one is allocated
// ("<instance>__eval") and /evaluate {patch, eval_script} → resolved is the score (1 or 0; no valid patch: 0 without an
// evaluation, as the reference skips it). Tries per endpoint as the reference's SWE client does (10; /evaluate 3).
import type { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { EnvironmentToolCall } from "../../contracts/environment.ts";
import { sweAllocateAnswerSchema, sweDiffAnswerSchema, sweEvaluateAnswerSchema, sweExecAnswerSchema, swePlainAnswerSchema, sweTaskMetaSchema } from "../../contracts/swe-environment.ts";
import { EnvironmentHttp, type EnvironmentHttpOptions } from "./environment-http.ts";
import { oneTextArgumentTool, type EpisodeEnvironment } from "./episode-environment.ts";

/** The reference SWE client's tries per endpoint (tests/fixtures/reference-episodes/citations.json swe_attempts). */
export const SWE_ENDPOINT_ATTEMPTS = { "/allocate": 10, "/exec": 10, "/diff": 10, "/heartbeat": 10, "/evaluate": 3, "/close": 10 } as const;

export const BASH_TOOL = oneTextArgumentTool(
  "bash",
  "Run a bash command in the repository (its folder is the working directory). Read, search, edit files and run the tests with it; when done, answer without a tool call: the repository's diff is your patch.",
  "command",
  "The bash command.",
);

interface Episode {
  task: z.infer<typeof sweTaskMetaSchema>;
  instanceId: string;
  lease: string | null;
  patch: string | null;
}

/** swe_exec_server.py's _is_valid_git_patch: a unified git diff with its headers. */
export function isGitPatch(text: string): boolean {
  const patch = text.trim();
  return patch.includes("diff --git ") && (patch.includes("--- a/") || patch.includes("--- /dev/null")) && patch.includes("+++ b/");
}

export class SweEnvironmentClient implements EpisodeEnvironment {
  private readonly http: EnvironmentHttp;
  /** By handle (the episode id: allocate has no image yet, so the container comes at reset). */
  private readonly episodes = new Map<string, Episode | null>();

  constructor(baseUrl: string, options: EnvironmentHttpOptions = {}) {
    this.http = new EnvironmentHttp(baseUrl, options);
  }

  healthy(): Promise<boolean> {
    return this.http.healthy();
  }

  async allocate(_taskKey: string, requestId: string): Promise<string> {
    this.episodes.set(requestId, null);
    return requestId;
  }

  async reset(handle: string, taskMeta: Record<string, unknown>): Promise<{ userMessage: string; toolSchemas: unknown[] }> {
    const parsed = sweTaskMetaSchema.safeParse(taskMeta);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new OpenclawRlError("ENVIRONMENT_ERROR", `a SWE task needs task_meta.${issue.path.join(".")}: ${issue.message}`, { path: `task_meta.${issue.path.join(".")}` });
    }
    const instanceId = parsed.data.instance_id ?? String(taskMeta.task_path ?? handle);
    const episode: Episode = { task: parsed.data, instanceId, lease: null, patch: null };
    this.episodes.set(handle, episode);
    episode.lease = await this.allocateContainer(parsed.data.image, instanceId);
    return { userMessage: `${parsed.data.problem_statement}\n\nFix the repository so that this is resolved. Use the bash tool; when you are done, answer without calling it.`, toolSchemas: [BASH_TOOL] };
  }

  async execTool(handle: string, toolCall: EnvironmentToolCall): Promise<string> {
    const episode = this.started(handle);
    if (toolCall.name !== BASH_TOOL.function.name) return `error: unknown tool ${toolCall.name}; the one tool is bash {command}`;
    const command = toolCall.arguments.command;
    if (typeof command !== "string" || command.length === 0) return "error: bash needs a command (text)";
    const answer = await this.post("/exec", { lease_id: episode.lease, command, cwd: episode.task.cwd, timeout: 180, env: {} }, sweExecAnswerSchema);
    return `returncode: ${answer.returncode}\n${answer.output}`;
  }

  /** The patch (/diff), then a fresh container for the evaluation, as the reference evaluates. */
  async evaluate(handle: string): Promise<number> {
    const episode = this.started(handle);
    episode.patch = (await this.post("/diff", { lease_id: episode.lease, cwd: episode.task.cwd }, sweDiffAnswerSchema)).patch;
    if (!isGitPatch(episode.patch)) return 0;
    await this.closeLease(episode);
    const evaluation = await this.allocateContainer(episode.task.image, `${episode.instanceId}__eval`);
    try {
      const answer = await this.post("/evaluate", { lease_id: evaluation, patch: episode.patch, eval_script: episode.task.eval_script, cwd: episode.task.cwd, timeout: 3600 }, sweEvaluateAnswerSchema);
      return answer.resolved ? 1 : 0;
    } finally {
      await this.http.post("/close", { lease_id: evaluation }, swePlainAnswerSchema, { attempts: SWE_ENDPOINT_ATTEMPTS["/close"], stoppable: false }).catch(() => undefined);
    }
  }

  /** The episode's final patch (the repository's diff when it was evaluated); null before. */
  patch(handle: string): string | null {
    return this.episodes.get(handle)?.patch ?? null;
  }

  async heartbeat(handle: string): Promise<void> {
    const lease = this.episodes.get(handle)?.lease;
    if (lease) await this.post("/heartbeat", { lease_id: lease }, swePlainAnswerSchema);
  }

  async close(handle: string): Promise<void> {
    const episode = this.episodes.get(handle);
    if (episode) await this.closeLease(episode);
  }

  private async allocateContainer(image: string, instanceId: string): Promise<string> {
    const full = (status: number, json: unknown) => status === 500 && /^All exec nodes are full/.test(String((json as { error?: unknown } | undefined)?.error ?? ""));
    return (await this.http.postUntilRoom("/allocate", { image, instance_id: instanceId }, sweAllocateAnswerSchema, { attempts: SWE_ENDPOINT_ATTEMPTS["/allocate"], full })).lease_id;
  }

  private async closeLease(episode: Episode): Promise<void> {
    const lease = episode.lease;
    episode.lease = null;
    if (lease) await this.http.post("/close", { lease_id: lease }, swePlainAnswerSchema, { attempts: SWE_ENDPOINT_ATTEMPTS["/close"], stoppable: false });
  }

  private started(handle: string): Episode & { lease: string } {
    const episode = this.episodes.get(handle);
    if (!episode?.lease) throw new OpenclawRlError("ENVIRONMENT_ERROR", `the SWE episode ${handle} has no container (reset it first)`, { path: handle });
    return episode as Episode & { lease: string };
  }

  private async post<S extends z.ZodType<{ ok: boolean; error?: string }>>(route: keyof typeof SWE_ENDPOINT_ATTEMPTS, body: unknown, schema: S): Promise<z.infer<S>> {
    return (await this.http.post(route, body, schema, { attempts: SWE_ENDPOINT_ATTEMPTS[route] })) as z.infer<S>;
  }
}
