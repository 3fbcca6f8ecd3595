// The terminal environment: a shell task in a sandbox folder prepared by its setup script, one `run_command` tool
// (bash, no network, the sandbox's limits), and a score of 1 when the task's check script exits 0 there, else 0.
import path from "node:path";
import { z } from "zod";
import type { Environment, EpisodeStart, FunctionTool, ToolCall } from "../environment.ts";
import type { Sandbox } from "../sandbox.ts";
import type { SandboxLimitsInput } from "../sandbox-limits.ts";
import { describeRun } from "../sandbox-run.ts";
import { TaskCatalogue } from "../task-catalogue.ts";
import { openTaskSandbox } from "../task-sandbox.ts";
import { parseToolArguments } from "../tool-arguments.ts";
import { shellTaskSchema, type ShellTask } from "./shell-task.ts";

export const TERMINAL_TASKS = path.join(import.meta.dirname, "tasks.jsonl");

const commandArguments = z.object({ command: z.string().min(1).max(64_000) });

const TOOLS: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "run_command",
      description: "Run a bash command in your working folder (no network). The answer is its output and, when it fails, why.",
      parameters: { type: "object", properties: { command: { type: "string", description: "The bash command line." } }, required: ["command"] },
    },
  },
];

export interface TerminalEpisode {
  task: ShellTask;
  sandbox: Sandbox;
}

export class TerminalEnvironment implements Environment<TerminalEpisode> {
  readonly kind = "terminal";

  constructor(
    private readonly catalogue: TaskCatalogue<ShellTask>,
    private readonly limits: SandboxLimitsInput = {},
  ) {}

  static async open(tasksFile = TERMINAL_TASKS, limits: SandboxLimitsInput = {}): Promise<TerminalEnvironment> {
    return new TerminalEnvironment(await TaskCatalogue.read(tasksFile, shellTaskSchema), limits);
  }

  async reset(taskMeta: Record<string, unknown>): Promise<EpisodeStart<TerminalEpisode>> {
    const task = this.catalogue.resolve(taskMeta);
    const sandbox = await openTaskSandbox(task, this.limits, { run: (fresh) => fresh.run("bash", ["-c", task.setup]), what: "the setup", hint: "fix the task's setup script" });
    const userMessage = `${task.instruction}\n\nYou work in a shell in your own folder, without network: run commands with the \`run_command\` tool. Answer without a tool call when you are done.`;
    return { userMessage, toolSchemas: TOOLS, state: { task, sandbox } };
  }

  async execTool(episode: TerminalEpisode, call: ToolCall): Promise<string> {
    if (call.name !== "run_command") return `error: no tool named ${call.name}; the only tool is run_command`;
    const parsed = parseToolArguments("run_command", commandArguments, call.arguments);
    return parsed.ok ? describeRun(await episode.sandbox.run("bash", ["-c", parsed.value.command])) : parsed.observation;
  }

  async evaluate(episode: TerminalEpisode): Promise<number> {
    return (await episode.sandbox.run("bash", ["-c", episode.task.check])).exitCode === 0 ? 1 : 0;
  }

  async close(episode: TerminalEpisode): Promise<void> {
    await episode.sandbox.close();
  }
}
