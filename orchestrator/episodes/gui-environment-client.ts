// A client of the reference's GUI pool for the episode driver: /allocate {episode_id} (its 500 "Pool exhausted" waited
// out as a full server), /reset {task_config} → the first observation, one tool `computer {action}` sent as /step
// {action} → the next observation, reward and done, then /evaluate and /close. Observations are text only: the
// accessibility tree. A pool that gives screenshots alone is refused by name (the proxy does not capture images yet).
// Tries per endpoint as the reference's GUI client does (10; /evaluate 6).
import type { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { EnvironmentToolCall } from "../../contracts/environment.ts";
import { guiAllocateAnswerSchema, guiEvaluateAnswerSchema, guiPlainAnswerSchema, guiResetAnswerSchema, guiStepAnswerSchema, type GuiObservation } from "../../contracts/gui-environment.ts";
import { EnvironmentHttp, type EnvironmentHttpOptions } from "./environment-http.ts";
import { oneTextArgumentTool, type EpisodeEnvironment } from "./episode-environment.ts";

/** The reference GUI client's tries per endpoint (tests/fixtures/reference-episodes/citations.json gui_attempts). */
export const GUI_ENDPOINT_ATTEMPTS = { "/allocate": 10, "/reset": 10, "/step": 10, "/heartbeat": 10, "/evaluate": 6, "/close": 10 } as const;

/** The one tool: an action in the pool's action space (pyautogui by default), or one of its special actions. */
export const COMPUTER_TOOL = oneTextArgumentTool(
  "computer",
  "Act on the desktop: one pyautogui command (for example pyautogui.click(320, 200) or pyautogui.typewrite('hello')), or WAIT, DONE (the task is complete) or FAIL (it cannot be done).",
  "action",
  "The pyautogui command, or WAIT, DONE or FAIL.",
);

export class GuiEnvironmentClient implements EpisodeEnvironment {
  private readonly http: EnvironmentHttp;
  /** Leases whose last /step said done. */
  private readonly done = new Set<string>();

  constructor(baseUrl: string, options: EnvironmentHttpOptions = {}) {
    this.http = new EnvironmentHttp(baseUrl, options);
  }

  healthy(): Promise<boolean> {
    return this.http.healthy();
  }

  /** The pool has no request id: a retried allocate may take a second desktop (the reference's as well). */
  async allocate(_taskKey: string, requestId: string): Promise<string> {
    const full = (status: number, json: unknown) => status === 500 && /^Pool exhausted/.test(String((json as { error?: unknown } | undefined)?.error ?? ""));
    return (await this.http.postUntilRoom("/allocate", { episode_id: requestId }, guiAllocateAnswerSchema, { attempts: GUI_ENDPOINT_ATTEMPTS["/allocate"], full })).lease_id;
  }

  /** task_meta's `task_config` (OSWorld's task JSON) is what /reset takes; the instruction is task_meta's, the config's or the observation's. */
  async reset(leaseId: string, taskMeta: Record<string, unknown>): Promise<{ userMessage: string; toolSchemas: unknown[] }> {
    const taskConfig = (taskMeta.task_config ?? taskMeta) as Record<string, unknown>;
    const answer = await this.post("/reset", { lease_id: leaseId, task_config: taskConfig }, guiResetAnswerSchema);
    this.done.delete(leaseId);
    const instruction = [taskMeta.instruction, taskConfig.instruction, answer.observation.instruction].find((text) => typeof text === "string" && text.length > 0) as string | undefined;
    return { userMessage: `${instruction ?? ""}\n\nThe screen's accessibility tree:\n${screenText(answer.observation)}`, toolSchemas: [COMPUTER_TOOL] };
  }

  async execTool(leaseId: string, toolCall: EnvironmentToolCall): Promise<string> {
    if (toolCall.name !== COMPUTER_TOOL.function.name) return `error: unknown tool ${toolCall.name}; the one tool is computer {action}`;
    const action = toolCall.arguments.action;
    if (typeof action !== "string" || action.length === 0) return "error: computer needs an action (text): a pyautogui command, WAIT, DONE or FAIL";
    const answer = await this.post("/step", { lease_id: leaseId, action, sleep_after_execution: 0 }, guiStepAnswerSchema);
    if (answer.done) this.done.add(leaseId);
    return `${answer.done ? "(the task is over)\n" : ""}${screenText(answer.observation)}`;
  }

  finished(leaseId: string): boolean {
    return this.done.has(leaseId);
  }

  /** As the reference's GUI rollout: an episode that did not end with done sends FAIL before the evaluation. */
  async evaluate(leaseId: string): Promise<number> {
    if (!this.done.has(leaseId)) await this.post("/step", { lease_id: leaseId, action: "FAIL", sleep_after_execution: 0 }, guiStepAnswerSchema);
    return (await this.post("/evaluate", { lease_id: leaseId }, guiEvaluateAnswerSchema)).score;
  }

  async heartbeat(leaseId: string): Promise<void> {
    await this.post("/heartbeat", { lease_id: leaseId }, guiPlainAnswerSchema);
  }

  async close(leaseId: string): Promise<void> {
    this.done.delete(leaseId);
    await this.http.post("/close", { lease_id: leaseId }, guiPlainAnswerSchema, { attempts: GUI_ENDPOINT_ATTEMPTS["/close"], stoppable: false });
  }

  private async post<S extends z.ZodType<{ ok: boolean; error?: string }>>(route: keyof typeof GUI_ENDPOINT_ATTEMPTS, body: unknown, schema: S): Promise<z.infer<S>> {
    return (await this.http.post(route, body, schema, { attempts: GUI_ENDPOINT_ATTEMPTS[route] })) as z.infer<S>;
  }
}

/** The observation as text: its accessibility tree. Screenshots are refused by name until the proxy captures images. */
function screenText(observation: GuiObservation): string {
  if (typeof observation.accessibility_tree === "string") return observation.accessibility_tree;
  throw new OpenclawRlError(
    "ENVIRONMENT_ERROR",
    `the GUI pool's observation has ${observation.screenshot_b64 ? "a screenshot and " : ""}no accessibility tree: screenshot observations are not supported (the proxy does not capture images yet), only text ones`,
    { path: "observation.accessibility_tree", hint: "start gui-rl/env_pool_server.py with --observation-type a11y_tree (or screenshot_a11y_tree: its screenshot is then left out)" },
  );
}
