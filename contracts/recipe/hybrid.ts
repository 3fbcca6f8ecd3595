// The recipe's `hybrid` section: votes, hint candidates and loss terms of method hybrid. Ignores opd's keys.
import { z } from "zod";
import { positiveInt } from "./scalars.ts";

/** How the hybrid's loss picks the teacher candidate: by summed top-K overlap, per token, or the shortest hint. */
export const HYBRID_SELECTIONS = ["sequence_optimal", "token_optimal", "shortest"] as const;
/** Which vocabulary subset S_t the hybrid's distillation term sums over. */
export const HYBRID_SUBSETS = ["student", "teacher", "overlap"] as const;

export const hybridSchema = z
  .object({
    hint_votes: positiveInt
      .max(64)
      .optional()
      .describe("m: hint-judge votes per turn, each able to propose one hint. Unset: judge.votes (the reference asks both vote sets with its --prm-m, 3)."),
    eval_votes: positiveInt
      .max(64)
      .optional()
      .describe("Evaluation votes per turn; their majority (a tie or none valid: 0) is the turn's reward when it is ±1. Unset: judge.votes."),
    min_hint_chars: z
      .number()
      .int()
      .min(0)
      .default(10)
      .describe("A hint is kept only when its vote is 1 and its trimmed text is longer than this many characters (the reference's 10)."),
    max_candidates: positiveInt
      .max(64)
      .default(3)
      .describe("The most hint candidates per turn: kept hints are de-duplicated, sorted shortest first and cut to this many."),
    selection: z
      .enum(HYBRID_SELECTIONS)
      .default("sequence_optimal")
      .describe(
        "Which candidate teaches each response, from the overlap O[h, t] of the student's top-K with the teacher's top-K given hint h. sequence_optimal: the candidate with the largest overlap summed over the response; token_optimal: at each token the candidate with the largest overlap there; shortest: always the first (shortest) hint.",
      ),
    subset: z
      .enum(HYBRID_SUBSETS)
      .default("student")
      .describe("The vocabulary subset S_t the distillation term sums over at each token: student = the student's top-K (π_old), teacher = the chosen candidate's top-K, overlap = their intersection."),
    topk: positiveInt.max(1000).default(4).describe("K: the width of the student's and the teacher's top-K rows."),
    clip: z
      .number()
      .min(0)
      .default(1.0)
      .describe("C: at each token, each entry of S_t's teacher − old log-prob difference is clipped to ±C before it becomes that entry's advantage in the distillation term (0 = no clip)."),
    w_rl: z.number().min(0).default(1.0).describe("Weight of the GRPO term (the evaluation reward) in the hybrid's loss."),
    w_opd: z.number().min(0).default(1.0).describe("Weight of the top-K distillation term in the hybrid's loss."),
    fallback_to_unenhanced: z
      .boolean()
      .default(true)
      .describe(
        "A turn with an evaluation of ±1 but no kept hint: true trains it with one candidate, the un-enhanced prompt (its distillation term is then about 0), as the reference's OpenClaw server does; false makes no sample of it (the trainer takes a hybrid batch only when every sample carries a candidate, so it cannot be trained by the GRPO term alone).",
      ),
    teacher: z
      .enum(["trainer"])
      .default("trainer")
      .describe(
        "Who computes the candidates' top-K rows: the trainer, with a frozen teacher that is slime's --ref-load checkpoint (training.ref_load, else model.path: the policy's initial weights), one forward per candidate. A teacher of another size (the reference's --prm-teacher-load) is not offered.",
      ),
  })
  .strict()
  .prefault({});
