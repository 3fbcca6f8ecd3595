// recipe + context → LaunchPlan, by engine kind: slime (Ray + slime + SGLang), external (nothing to start),
// rehearsal (CPU stand-ins, from rehearsal/). Pure: starts nothing, writes nothing.
import type { LaunchPlan, PlanContext } from "../contracts/plan.ts";
import type { Recipe } from "../contracts/recipe.ts";
import { environmentProcess } from "./environment-plan.ts";
import { rehearsalProcesses } from "./rehearsal-plan.ts";
import { rehearsalUnusedNote } from "./rehearsal-unused-keys.ts";
import { slimePlan, type SlimePlanOptions } from "./slime/slime-plan.ts";

export type LaunchPlanOptions = SlimePlanOptions;

export async function buildLaunchPlan(recipe: Recipe, context: PlanContext, options: LaunchPlanOptions = {}): Promise<LaunchPlan> {
  const plan = await enginePlan(recipe, context, options);
  const environment = environmentProcess(recipe, context);
  const teacher = teacherNote(recipe);
  return { ...plan, processes: environment ? [...plan.processes, environment] : plan.processes, notes: teacher ? [...plan.notes, teacher] : plan.notes };
}

/** Where the OPD teacher's log-probs are computed, and why (opd.teacher set, or chosen: recipe.derived.teacher). */
export function teacherNote(recipe: Recipe): string | null {
  if (recipe.method === "binary") return null;
  if (recipe.method === "hybrid") {
    const hybrid = recipe.hybrid;
    return `teacher: in the trainer, the frozen ${recipe.derived.referenceModelPath} (slime's --ref-load) gives top-${hybrid.topk} rows for each of up to ${hybrid.max_candidates} hint candidates per turn; ${hybrid.selection} selection, ${hybrid.subset} subset`;
  }
  const where = recipe.derived.teacher;
  const chosen = recipe.opd.teacher === undefined ? "opd.teacher unset" : `opd.teacher ${where}`;
  if (where === "engine") {
    const gap = recipe.derived.trainerTeacherGap;
    return `teacher: the judge engine scores each hinted turn (${chosen}${recipe.opd.teacher === undefined && gap ? `; not in the trainer: ${gap}` : ""})`;
  }
  const model = recipe.engine.kind === "slime" ? ` of ${recipe.derived.referenceModelPath} (slime's --ref-load), in the trainer's own GPU parameters` : " (the judge stand-in's teacher)";
  return `teacher: one forward in the trainer per hinted turn${model}, no judge-engine request (${chosen})`;
}

async function enginePlan(recipe: Recipe, context: PlanContext, options: LaunchPlanOptions): Promise<LaunchPlan> {
  switch (recipe.engine.kind) {
    case "slime":
      return slimePlan(recipe, context, options);
    case "external":
      return {
        method: recipe.method,
        engine: "external",
        placement: null,
        processes: [],
        notes: [`attaches to the policy at ${recipe.engine.policy_url} and the judge at ${recipe.derived.judgeUrl}; starts no engine`],
      };
    case "rehearsal":
      return rehearsalPlan(recipe, context);
  }
}

function rehearsalPlan(recipe: Recipe, context: PlanContext): LaunchPlan {
  const unused = rehearsalUnusedNote(recipe);
  return {
    method: recipe.method,
    engine: "rehearsal",
    placement: null,
    processes: rehearsalProcesses(recipe, context),
    notes: [
      "the policy and judge are CPU stand-ins: the model is a stand-in",
      ...(recipe.sink.kind === "jsonl" ? [`sink.kind jsonl: samples go to sink.path (${recipe.sink.path}); no stand-in trainer runs, so the stand-in policy keeps its weights`] : []),
      ...(unused ? [unused] : []),
    ],
  };
}
