// The recipe's `evaluation` section: held-out evaluation and its guard. Ignores scoring itself (orchestrator/evaluation).
import { z } from "zod";
import { positiveInt } from "./scalars.ts";

export const evaluationSchema = z
  .object({
    every_versions: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe("Continuous held-out evaluation in `start`: evaluate the live policy version at the start (the base) and each time the weight version has advanced by this many; 0 = off (`openclaw-rl eval` still works)."),
    stop_if_worse: z
      .boolean()
      .default(false)
      .describe(
        "Pause training when a version's held-out score falls significantly below the best version's so far (the 95% t interval of the paired per-session difference lies below 0, over at least 6 sessions both scored): the bridge hands the trainer no new batch, the proxy keeps serving; resume with `openclaw-rl resume-training` (docs/evaluation.md). Needs every_versions > 0.",
      ),
    personas: z.string().optional().describe("JSONL persona set, one {id, persona, opener, rubric, turns} per line (docs/evaluation.md); default: the shipped configs/evaluation/personas.jsonl."),
    tasks: z
      .string()
      .optional()
      .describe("JSONL of held-out general-agent tasks in the environment task format, run in the episodes' environment (episodes.env_url or episodes.environment); refused when a task is also in episodes.tasks. Default with episodes.environment and its shipped tasks: the tasks it ships held out (environments/<name>/held-out.jsonl)."),
    episode_samples: positiveInt.max(64).default(4).describe("k: episodes per held-out task per version (outcome rate and pass@k)."),
    samples: positiveInt.max(32).default(2).describe("Sessions per opener per version (each with its own fixed simulator seeds)."),
    votes: positiveInt.max(16).default(3).describe("m: scorer votes per session (the judge with the persona's rubric), averaged."),
    simulator_url: z.string().url().optional().describe("OpenAI-compatible base URL of the simulated user's model; default: the judge engine's URL."),
    simulator_model: z.string().optional().describe("Model name sent to the simulator; default: the judge engine's served model (`default`)."),
    simulator_temperature: z.number().min(0).max(2).default(0.7).describe("The simulator's sampling temperature (its seed is fixed per opener, sample and turn)."),
    policy_temperature: z.number().min(0).max(2).default(1).describe("The policy's sampling temperature on evaluation chat turns, the same for every version (held-out episodes' steps are sampled as the run's episodes are)."),
    max_tokens: positiveInt.default(1024).describe("Most new tokens of an evaluation reply (policy, simulator and scorer alike)."),
    concurrency: positiveInt
      .max(64)
      .default(2)
      .describe("At most this many evaluation sessions at once, each with one request in flight: at most this many evaluation requests wait on the policy engine beside users' turns."),
    timeout_s: z.number().positive().default(300).describe("Timeout of one evaluation request, in seconds."),
  })
  .strict()
  .prefault({});
