// The built-in SWE environment: a tiny repository with a failing test in a sandbox folder; tools read_file, search,
// edit_file (replace text), run_tests and submit, every one run inside the sandbox as its user; /evaluate puts the
// test files back as shipped, runs the tests (exit 0 scores 1, else 0) and records the episode's final patch.
import { appendFile, readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Environment, EpisodeStart, Evaluation, FunctionTool, ToolCall } from "../environment.ts";
import type { Sandbox } from "../sandbox.ts";
import type { SandboxLimitsInput } from "../sandbox-limits.ts";
import { describeRun, type SandboxRun } from "../sandbox-run.ts";
import { TaskCatalogue } from "../task-catalogue.ts";
import { openTaskSandbox } from "../task-sandbox.ts";
import { parseToolArguments } from "../tool-arguments.ts";
import { repositoryTaskSchema, type RepositoryTask } from "./repository-task.ts";

export const SWE_TASKS = path.join(import.meta.dirname, "tasks.jsonl");
const FILE_TOOLS = path.join(import.meta.dirname, "file_tools.py");
const PYTHON = "/usr/bin/python3";
const MAX_TEXT = 64_000;

const pathArguments = z.object({ path: z.string().min(1).max(1000) });
const searchArguments = z.object({ pattern: z.string().min(1).max(1000) });
const editArguments = z.object({ path: z.string().min(1).max(1000), old_text: z.string().min(1).max(MAX_TEXT), new_text: z.string().max(MAX_TEXT) });
const noArguments = z.object({}).passthrough();

const tool = (name: string, description: string, properties: Record<string, string>): FunctionTool => ({
  type: "function",
  function: {
    name,
    description,
    parameters: { type: "object", properties: Object.fromEntries(Object.entries(properties).map(([key, text]) => [key, { type: "string", description: text }])), required: Object.keys(properties) },
  },
});

const TOOLS: FunctionTool[] = [
  tool("read_file", "Read a file of the repository (a path relative to its root).", { path: "The file's path, e.g. stats.py." }),
  tool("search", "Search the repository's files for a text (grep -rnF): each matching line with its file and line number.", { pattern: "The text to look for." }),
  tool("edit_file", "Replace old_text, which must occur exactly once in the file, with new_text.", { path: "The file's path.", old_text: "The exact text to replace.", new_text: "The text to put instead." }),
  tool("run_tests", "Run the repository's tests; the answer says whether they pass, with their output.", {}),
  tool("submit", "Submit your fix: your files are final (no more edits); they are scored by running the tests.", {}),
];

export interface SweEpisode {
  task: RepositoryTask;
  sandbox: Sandbox;
  /** The episode's id from run_ctx (ours: episode_id; the reference's: uid, group_index, sample_index), if sent. */
  episodeId: string | null;
  submitted: boolean;
}

/** One evaluated episode as the patches file holds it (a JSON line). */
export interface PatchRecord {
  episode_id: string | null;
  task_key: string;
  score: number;
  submitted: boolean;
  patch: string;
  at: string;
}

export class SweEnvironment implements Environment<SweEpisode> {
  readonly kind = "swe";

  constructor(
    private readonly catalogue: TaskCatalogue<RepositoryTask>,
    private readonly fileTools: string,
    private readonly limits: SandboxLimitsInput = {},
    private readonly patchesFile: string | undefined = undefined,
  ) {}

  /** `patchesFile`: a JSONL file each evaluation appends its PatchRecord to (the run folder's patches.jsonl). */
  static async open(tasksFile = SWE_TASKS, limits: SandboxLimitsInput = {}, patchesFile?: string): Promise<SweEnvironment> {
    const catalogue = await TaskCatalogue.read(tasksFile, repositoryTaskSchema as unknown as z.ZodType<RepositoryTask>);
    return new SweEnvironment(catalogue, await readFile(FILE_TOOLS, "utf8"), limits, patchesFile);
  }

  async reset(taskMeta: Record<string, unknown>, runContext: Record<string, unknown> = {}): Promise<EpisodeStart<SweEpisode>> {
    const task = this.catalogue.resolve(taskMeta);
    const sandbox = await openTaskSandbox(task, this.limits, {
      run: (fresh) => this.fileTool(fresh, "write", JSON.stringify(task.files)),
      what: "writing the files",
      hint: "file paths must be relative, without ..",
    });
    const files = Object.keys(task.files).sort().join(", ");
    const userMessage =
      `${task.instruction}\n\nFiles: ${files}\n\n` +
      "The repository is in your working folder (no network). Read and search it with `read_file` and `search`, change it with `edit_file`, " +
      "run its tests with `run_tests`, and call `submit` when your fix is done: it is scored by running the tests (as shipped) on your files.";
    return { userMessage, toolSchemas: TOOLS, state: { task, sandbox, episodeId: episodeIdOf(runContext), submitted: false } };
  }

  async execTool(episode: SweEpisode, call: ToolCall): Promise<string> {
    switch (call.name) {
      case "read_file": {
        const parsed = parseToolArguments("read_file", pathArguments, call.arguments);
        return parsed.ok ? observe(await this.fileTool(episode.sandbox, "read", parsed.value.path)) : parsed.observation;
      }
      case "search": {
        const parsed = parseToolArguments("search", searchArguments, call.arguments);
        if (!parsed.ok) return parsed.observation;
        const run = await episode.sandbox.run("grep", ["-rnF", "--exclude-dir=__pycache__", "--", parsed.value.pattern, "."]);
        return run.exitCode === 1 && run.stderr === "" ? `no line contains ${JSON.stringify(parsed.value.pattern)}` : describeRun(run);
      }
      case "edit_file": {
        const parsed = parseToolArguments("edit_file", editArguments, call.arguments);
        if (!parsed.ok) return parsed.observation;
        if (episode.submitted) return "error: the fix was submitted; the files are final";
        return observe(await this.fileTool(episode.sandbox, "edit", parsed.value.path, parsed.value.old_text, parsed.value.new_text));
      }
      case "run_tests": {
        const parsed = parseToolArguments("run_tests", noArguments, call.arguments);
        if (!parsed.ok) return parsed.observation;
        const run = await this.runTests(episode);
        return `${run.exitCode === 0 ? "PASSED" : "FAILED"}: \`${episode.task.test_command}\`\n${describeRun(run)}`;
      }
      case "submit":
        if (episode.submitted) return "error: the fix was already submitted";
        episode.submitted = true;
        return "submitted: your files are final and will be scored by running the tests";
      default:
        return `error: no tool named ${call.name}; the tools are ${TOOLS.map((offered) => offered.function.name).join(", ")}`;
    }
  }

  /** The patch first (the tree as the episode left it), then the tests on that tree with the test files as shipped. */
  async evaluate(episode: SweEpisode): Promise<Evaluation> {
    const patch = await this.patchOf(episode);
    const tests = Object.fromEntries(episode.task.test_files.map((file) => [file, episode.task.files[file]!]));
    const restored = await this.fileTool(episode.sandbox, "write", JSON.stringify(tests));
    const score = restored.exitCode === 0 && (await this.runTests(episode)).exitCode === 0 ? 1 : 0;
    if (this.patchesFile) {
      const record: PatchRecord = { episode_id: episode.episodeId, task_key: `${episode.task.task_name}:${episode.task.task_path}`, score, submitted: episode.submitted, patch, at: new Date().toISOString() };
      await appendFile(this.patchesFile, `${JSON.stringify(record)}\n`);
    }
    return { score, details: { patch } };
  }

  async close(episode: SweEpisode): Promise<void> {
    await episode.sandbox.close();
  }

  /** The unified diff (a/ b/ paths, `patch -p1` applies it) of the episode's folder against the task's files. */
  async patchOf(episode: SweEpisode): Promise<string> {
    const run = await this.fileTool(episode.sandbox, "diff", JSON.stringify(episode.task.files));
    if (run.exitCode !== 0) throw new OpenclawRlError("ENVIRONMENT_ERROR", `the patch of ${episode.task.task_path} could not be made: ${describeRun(run).slice(-500)}`, { path: episode.task.task_path });
    return run.stdout === "" ? "" : `${run.stdout}\n`; // (the sandbox's output loses its last newline)
  }

  private runTests(episode: SweEpisode): Promise<SandboxRun> {
    return episode.sandbox.run("bash", ["-c", episode.task.test_command]);
  }

  private fileTool(sandbox: Sandbox, ...args: string[]): Promise<SandboxRun> {
    return sandbox.run(PYTHON, ["-c", this.fileTools, ...args]);
  }
}

/** A refusal of file_tools.py (exit 2) is its message alone; anything else reads as any run does. */
function observe(run: SandboxRun): string {
  return run.exitCode === 2 ? run.stdout.trim() : describeRun(run);
}

function episodeIdOf(runContext: Record<string, unknown>): string | null {
  if (typeof runContext.episode_id === "string") return runContext.episode_id;
  const { uid, group_index: group, sample_index: sample } = runContext;
  return uid !== undefined && group !== undefined && sample !== undefined ? `${String(uid)}:${String(group)}:${String(sample)}` : null;
}
