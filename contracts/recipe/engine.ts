// The recipe's `engine` section: which engines run (slime, external or the rehearsal stand-ins) and where. Ignores the judge.
import { z } from "zod";
import { rehearsalSchema } from "./engine-rehearsal.ts";
import { slimeSchema } from "./engine-slime.ts";

export const engineSchema = z
  .object({
    kind: z.enum(["slime", "external", "rehearsal"]).default("slime").describe("slime: launch Ray + slime + SGLang; external: attach to running SGLang servers; rehearsal: CPU stand-ins (the model is a stand-in)."),
    policy_url: z.string().url().optional().describe("Policy SGLang (router) base URL for engine.kind external."),
    judge_url: z.string().url().optional().describe("Judge SGLang base URL for engine.kind external (or judge.url)."),
    slime: slimeSchema,
    rehearsal: rehearsalSchema,
  })
  .strict()
  .prefault({});
