// From the recipe's evaluation section to an EvaluationPlan: the persona set and held-out tasks, the proxy as the policy
// endpoint, the simulator (evaluation.simulator_url, else the judge engine) and the scorer (the judge engine, evaluation.votes).
import path from "node:path";
import type { PersonaOpener } from "../../contracts/evaluation.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { environmentClient } from "../episodes/environment-protocols.ts";
import type { Task } from "../episodes/task-file.ts";
import { episodeTasksFile } from "../episodes/task-file.ts";
import { readHeldOutTasks, readPersonaSet, SHIPPED_PERSONAS } from "./held-out-set.ts";
import type { EvaluationPlan } from "./version-evaluation.ts";

export interface EvaluationEndpoints {
  /** The proxy's base URL (with or without /v1) and its key. */
  proxyUrl: string;
  apiKey: string | undefined;
  /** The judge engine's base URL (the scorer's, and the simulator's unless evaluation.simulator_url is set). */
  judgeUrl: string;
}

export interface EvaluationSet {
  openers: PersonaOpener[];
  tasks: Task[];
}

/** The persona set the recipe names (else the shipped one) and its held-out tasks, checked against episodes.tasks; read once. */
export async function readEvaluationSet(recipe: Recipe): Promise<EvaluationSet> {
  const openers = await readPersonaSet(recipe.evaluation.personas ?? SHIPPED_PERSONAS);
  const tasks = heldOutTasksFile(recipe);
  if (tasks === null) return { openers, tasks: [] }; // (held-out tasks without an environment: refused by the recipe schema)
  return { openers, tasks: await readHeldOutTasks(tasks, episodeTasksFile(recipe.episodes)) };
}

/**
 * The held-out tasks: evaluation.tasks, else, on a built-in environment training on the tasks it ships, the tasks
 * it ships held out (environments/<name>/held-out.jsonl); null without either (another environment's tasks are the user's to name).
 */
export function heldOutTasksFile(recipe: Recipe): string | null {
  if (recipe.evaluation.tasks) return recipe.evaluation.tasks;
  const { environment, tasks } = recipe.episodes;
  return environment && !tasks ? path.resolve(import.meta.dirname, "..", "..", "environments", environment, "held-out.jsonl") : null;
}

export function buildEvaluationPlan(recipe: Recipe, set: EvaluationSet, endpoints: EvaluationEndpoints, signal?: AbortSignal): EvaluationPlan {
  const settings = recipe.evaluation;
  const timeoutMs = settings.timeout_s * 1000;
  const judge = { url: endpoints.judgeUrl, model: "default", timeoutMs };
  const environment = recipe.derived.environmentUrl;
  return {
    openers: set.openers,
    samples: settings.samples,
    concurrency: settings.concurrency,
    session: {
      policy: { url: endpoints.proxyUrl, model: recipe.model.served_name, apiKey: endpoints.apiKey, timeoutMs },
      policySampling: { temperature: settings.policy_temperature, max_tokens: settings.max_tokens },
      simulator: {
        endpoint: { url: settings.simulator_url ?? endpoints.judgeUrl, model: settings.simulator_model ?? "default", timeoutMs },
        temperature: settings.simulator_temperature,
        maxTokens: settings.max_tokens,
      },
      scorer: { endpoint: judge, votes: settings.votes, temperature: recipe.judge.temperature, maxTokens: settings.max_tokens },
    },
    episodes:
      set.tasks.length === 0 || environment === null
        ? null
        : {
            proxyUrl: endpoints.proxyUrl,
            apiKey: endpoints.apiKey,
            model: recipe.model.served_name,
            environment: environmentClient(recipe.episodes.env_protocol, environment, signal ? { signal } : {}),
            tasks: set.tasks,
            k: settings.episode_samples,
            maxSteps: recipe.episodes.max_steps,
            concurrency: settings.concurrency,
            contextTokens: recipe.model.context_length - recipe.model.max_response_tokens,
          },
  };
}
