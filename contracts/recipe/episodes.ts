// The recipe's `episodes` section: the environment server, tasks and episode limits. Ignores the episodes' running.
import { z } from "zod";
import { port, positiveInt } from "./scalars.ts";

export const episodesSchema = z
  .object({
    env_url: z
      .string()
      .url()
      .optional()
      .describe("Base URL of an environment server: one speaking the reference's lease protocol (/allocate, /reset, /exec_tool, /evaluate, /close), or its GUI or SWE pool (episodes.env_protocol); episodes are off without it or episodes.environment."),
    environment: z
      .enum(["toolcall", "terminal", "swe"])
      .optional()
      .describe("A built-in environment server that `start` runs and supervises (environments/): toolcall (math tasks, a sandboxed python tool), terminal (shell tasks checked by a script) or swe (tiny repositories with a failing test; each episode's final patch goes to the run folder's patches.jsonl). Instead of env_url."),
    environment_port: port.default(18090).describe("Loopback port of the built-in environment server."),
    env_protocol: z
      .enum(["lease", "gui", "swe"])
      .default("lease")
      .describe("The protocol episodes.env_url speaks: lease (the reference's terminal router/pool and our built-in servers), gui (the reference's GUI pool: text observations only) or swe (its SWE pool: tasks carry image, problem_statement and eval_script). docs/episodes.md names their servers."),
    tasks: z
      .string()
      .optional()
      .describe('JSONL file of tasks, one {"task_meta": {...}} per line; task_meta\'s task_name and task_path make the task key (task_name:task_path). Default with episodes.environment: the tasks it ships.'),
    samples_per_task: positiveInt.default(8).describe("Episodes per task: the group whose steps are standardised together (the reference's --n-samples-per-prompt)."),
    max_steps: positiveInt.default(10).describe("Most steps (model turns) in an episode."),
    prm_step_coef: z.number().min(0).default(1).describe("c in the step reward r_t = o + c·p_t (o the episode's outcome, p_t the judge's step score)."),
    concurrency: positiveInt.default(16).describe("Episodes running at once (each holds a lease)."),
    epochs: positiveInt.default(1).describe("Passes over the task file."),
    group_timeout_s: z
      .number()
      .positive()
      .default(1800)
      .describe("A task group still short of samples_per_task finished episodes this long after its first one finished is trained as it is."),
  })
  .strict()
  .prefault({});
