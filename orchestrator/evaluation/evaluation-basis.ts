// What makes two base evaluations interchangeable: the same base weights and the same evaluation plan (openers,
// tasks, samples, votes, sampling, simulator and scorer). Only identity strings; which base a run pairs with is evaluation-history.ts's.
import { createHash } from "node:crypto";
import type { VersionMetrics } from "../../contracts/evaluation.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { EvaluationSet } from "./evaluation-plan.ts";

export type EvaluationBasis = NonNullable<VersionMetrics["basis"]>;

/** The weights a run's version 0 serves: the stand-in's seeded policy, slime's loaded checkpoint, or the external engine's. */
export function baseWeightsOf(recipe: Recipe): string {
  if (recipe.engine.kind === "rehearsal") return `stand-in ${recipe.model.path} seed ${recipe.engine.rehearsal.seed}`;
  if (recipe.engine.kind === "slime") return recipe.training.load_dir ? `slime training.load_dir ${recipe.training.load_dir}` : `slime model.path ${recipe.model.path}`;
  return `external ${recipe.engine.policy_url ?? ""} ${recipe.model.path}`;
}

/** The basis of an evaluation of `recipe` on `set`: the plan as a short hash of everything that decides a session's score. */
export function evaluationBasis(recipe: Recipe, set: EvaluationSet): EvaluationBasis {
  const settings = recipe.evaluation;
  const plan = {
    openers: set.openers,
    tasks: set.tasks.map((task) => task.meta),
    environment: set.tasks.length > 0 ? recipe.derived.environmentName : null,
    samples: settings.samples,
    episodeSamples: set.tasks.length > 0 ? settings.episode_samples : null,
    votes: settings.votes,
    sampling: [settings.policy_temperature, settings.simulator_temperature, settings.max_tokens],
    simulator: [settings.simulator_url ?? "judge", settings.simulator_model ?? "default"],
    scorer: [recipe.judge.path, recipe.judge.temperature],
  };
  return { weights: baseWeightsOf(recipe), plan: createHash("sha256").update(JSON.stringify(plan)).digest("hex").slice(0, 16) };
}

export function sameBasis(a: EvaluationBasis | undefined, b: EvaluationBasis): boolean {
  return a !== undefined && a.weights === b.weights && a.plan === b.plan;
}
