// Values derived from several recipe keys: the judge's URL and checkpoint, the teacher's place and temperature, the
// hybrid's vote counts. Ignores the checks that refuse a recipe (cross-checks.ts).
import { usesOpdTeacher } from "./method.ts";
import type { RecipeSettings } from "./settings.ts";
import { trainerTeacherGap } from "./teacher-gaps.ts";

/**
 * Where the teacher's log-probs are computed: the trainer for the hybrid; else opd.teacher when set, else the trainer
 * wherever it can run it.
 */
export function opdTeacher(recipe: RecipeSettings): "engine" | "trainer" {
  if (recipe.method === "hybrid") return recipe.hybrid.teacher;
  if (recipe.opd.teacher !== undefined) return recipe.opd.teacher;
  return usesOpdTeacher(recipe.method) && trainerTeacherGap(recipe) === null ? "trainer" : "engine";
}

/** The temperature the teacher's log-probs are scored at: opd.teacher_temperature, else the rollout temperature. */
export function teacherTemperature(recipe: RecipeSettings): number {
  return recipe.opd.teacher_temperature ?? recipe.sampling.temperature;
}

/** The judge's checkpoint: judge.path, else the policy's. */
export function judgePath(recipe: RecipeSettings): string {
  return recipe.judge.path ?? recipe.model.path;
}

/** The external judge's base URL: judge.url, else engine.judge_url; null when neither is set. */
export function judgeUrl(recipe: { judge: { url?: string | undefined }; engine: { judge_url?: string | undefined } }): string | null {
  return recipe.judge.url ?? recipe.engine.judge_url ?? null;
}

/** The hybrid's two vote counts per turn: hybrid.hint_votes and hybrid.eval_votes, each judge.votes when unset. */
export function hybridVotes(recipe: RecipeSettings): { hint: number; evaluation: number } {
  return { hint: recipe.hybrid.hint_votes ?? recipe.judge.votes, evaluation: recipe.hybrid.eval_votes ?? recipe.judge.votes };
}
