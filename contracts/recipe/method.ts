// The recipe's `method` key: which training signal a run learns from. Ignores how each method is trained.
import { z } from "zod";

export const methodSchema = z.enum(["binary", "opd", "combine", "hybrid"]).describe(
  "Training signal: binary (judge votes +1/0/-1, PPO), opd (hindsight-hint on-policy distillation), combine (both, weighted), hybrid (GRPO + top-K distillation over several hint candidates per turn, the reference's current method; the hybrid section).",
);
export type Method = z.infer<typeof methodSchema>;

/** The methods whose teacher is opd's (opd.teacher, opd.teacher_temperature): opd and combine. */
export function usesOpdTeacher(method: Method): boolean {
  return method === "opd" || method === "combine";
}
