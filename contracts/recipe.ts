// The recipe: the schema composed from its sections (contracts/recipe/, one file per section, each key with its
// default and description), the cross-field checks, and the public names importers use. Ignores loading files (cli/).
import type { z } from "zod";
import { checkRecipe } from "./recipe/cross-checks.ts";
import { recipeObjectSchema } from "./recipe/settings.ts";

export { hybridVotes, judgePath, judgeUrl, opdTeacher, teacherTemperature } from "./recipe/derived.ts";
export { environmentUrl, episodesOn } from "./recipe/episodes.ts";
export { STREAM_OUTPUT_FLAG_OF_FLAVOR, streamFormOf } from "./recipe/engine-slime.ts";
export { HYBRID_SELECTIONS, HYBRID_SUBSETS } from "./recipe/hybrid.ts";
export { methodSchema, usesOpdTeacher, type Method } from "./recipe/method.ts";
export { MODEL_FAMILIES, type ModelFamilyName } from "./recipe/model.ts";
export { type FairBatchSettings } from "./recipe/fair-batch.ts";
export { type SampleGateSettings } from "./recipe/sample-gate.ts";
export { recipeObjectSchema, type RecipeSettings } from "./recipe/settings.ts";
export { hybridTrainerGap, trainerTeacherGap } from "./recipe/teacher-gaps.ts";
export { trainingBackend } from "./recipe/training.ts";

/** The recipe as `start` and every command parse it: the keys, then the checks that need several at once. */
export const recipeSchema = recipeObjectSchema.superRefine(checkRecipe);

export type Recipe = z.output<typeof recipeSchema>;
export type RecipeInput = z.input<typeof recipeSchema>;
