// The tool-call environment: a math word problem, a `python` tool that runs code in the sandbox (the observation is
// its output, capped) and `submit_answer`, whose first answer is final; the score is 1 for the right answer, else 0.
import path from "node:path";
import { z } from "zod";
import type { Environment, EpisodeStart, FunctionTool, ToolCall } from "../environment.ts";
import { Sandbox } from "../sandbox.ts";
import type { SandboxLimitsInput } from "../sandbox-limits.ts";
import { describeRun } from "../sandbox-run.ts";
import { TaskCatalogue } from "../task-catalogue.ts";
import { parseToolArguments } from "../tool-arguments.ts";
import { isRightAnswer, mathTaskSchema, type MathTask } from "./math-task.ts";

/** The default tasks: arithmetic a rehearsal stand-in can learn to check with python (sums and products). */
export const TOOLCALL_TASKS = path.join(import.meta.dirname, "tasks.jsonl");
/** Word problems for real models (`episodes.tasks`); math-task-generator.ts makes more of their kind. */
export const WORD_PROBLEMS = path.join(import.meta.dirname, "word-problems.jsonl");
const PYTHON = "/usr/bin/python3";
const MAX_CODE_CHARS = 64_000;

const pythonArguments = z.object({ code: z.string().min(1).max(MAX_CODE_CHARS) });
const submitArguments = z.object({ answer: z.union([z.string().min(1), z.number()]) });

const TOOLS: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "python",
      description: "Run Python 3 code in a sandbox without network; the answer is what it prints (stdout and stderr), cut when long.",
      parameters: { type: "object", properties: { code: { type: "string", description: "The Python program to run." } }, required: ["code"] },
    },
  },
  {
    type: "function",
    function: {
      name: "submit_answer",
      description: "Submit the final answer, a number. Only the first submission counts.",
      parameters: { type: "object", properties: { answer: { type: "string", description: "The final answer, e.g. 42." } }, required: ["answer"] },
    },
  },
];

export interface ToolcallEpisode {
  task: MathTask;
  sandbox: Sandbox;
  submitted: string | number | undefined;
}

export class ToolcallEnvironment implements Environment<ToolcallEpisode> {
  readonly kind = "toolcall";

  constructor(
    private readonly catalogue: TaskCatalogue<MathTask>,
    private readonly limits: SandboxLimitsInput = {},
  ) {}

  static async open(tasksFile = TOOLCALL_TASKS, limits: SandboxLimitsInput = {}): Promise<ToolcallEnvironment> {
    return new ToolcallEnvironment(await TaskCatalogue.read(tasksFile, mathTaskSchema), limits);
  }

  async reset(taskMeta: Record<string, unknown>): Promise<EpisodeStart<ToolcallEpisode>> {
    const task = this.catalogue.resolve(taskMeta);
    const userMessage = `${task.question}\n\nYou may run Python with the \`python\` tool. When you know the answer, call \`submit_answer\` with it (a number); only your first submission counts.`;
    return { userMessage, toolSchemas: TOOLS, state: { task, sandbox: await Sandbox.open(this.limits), submitted: undefined } };
  }

  async execTool(episode: ToolcallEpisode, call: ToolCall): Promise<string> {
    if (call.name === "python") {
      const parsed = parseToolArguments("python", pythonArguments, call.arguments);
      return parsed.ok ? describeRun(await episode.sandbox.run(PYTHON, ["-c", parsed.value.code])) : parsed.observation;
    }
    if (call.name === "submit_answer") {
      const parsed = parseToolArguments("submit_answer", submitArguments, call.arguments);
      if (!parsed.ok) return parsed.observation;
      if (episode.submitted !== undefined) return `error: an answer was already submitted (${episode.submitted}); only the first counts`;
      episode.submitted = parsed.value.answer;
      return `answer submitted: ${parsed.value.answer}`;
    }
    return `error: no tool named ${call.name}; the tools are ${TOOLS.map((tool) => tool.function.name).join(", ")}`;
  }

  async evaluate(episode: ToolcallEpisode): Promise<number> {
    return episode.submitted !== undefined && isRightAnswer(episode.submitted, episode.task) ? 1 : 0;
  }

  async close(episode: ToolcallEpisode): Promise<void> {
    await episode.sandbox.close();
  }
}
