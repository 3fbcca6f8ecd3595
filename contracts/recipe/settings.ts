// The recipe's keys, section by section, as written (file + --set + --method, defaults filled): the object schema the
// cross-field checks and the resolution start from. Ignores what several keys mean together (cross-checks.ts, derived.ts).
import { z } from "zod";
import { clusterSchema } from "./cluster.ts";
import { combineSchema } from "./combine.ts";
import { engineSchema } from "./engine.ts";
import { episodesSchema } from "./episodes.ts";
import { evaluationSchema } from "./evaluation.ts";
import { hybridSchema } from "./hybrid.ts";
import { judgeSchema } from "./judge.ts";
import { methodSchema } from "./method.ts";
import { modelSchema } from "./model.ts";
import { opdSchema } from "./opd.ts";
import { proxySchema } from "./proxy.ts";
import { recordsSchema } from "./records.ts";
import { samplingSchema } from "./sampling.ts";
import { sinkSchema } from "./sink.ts";
import { trainingSchema } from "./training.ts";
import { wandbSchema } from "./wandb.ts";

export const recipeObjectSchema = z
  .object({
    name: z.string().optional().describe("Recipe name shown in status and the banner."),
    method: methodSchema.default("binary"),
    model: modelSchema,
    sampling: samplingSchema,
    judge: judgeSchema,
    cluster: clusterSchema,
    training: trainingSchema,
    combine: combineSchema,
    opd: opdSchema,
    hybrid: hybridSchema,
    proxy: proxySchema,
    engine: engineSchema,
    sink: sinkSchema,
    records: recordsSchema,
    wandb: wandbSchema,
    episodes: episodesSchema,
    evaluation: evaluationSchema,
  })
  .strict();

/** The recipe's keys after parsing, before the values derived from several of them are added. */
export type RecipeSettings = z.output<typeof recipeObjectSchema>;
