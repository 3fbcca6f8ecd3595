// The reference's GUI pool protocol (its files in tests/fixtures/reference-episodes/citations.json): answers as JSON
// with `ok`; an observation is OSWorld's, its screenshot as base64 text.
import { z } from "zod";

const answer = z.object({ ok: z.boolean(), error: z.string().optional() }).passthrough();

/** An observation as the pool encodes it (_encode_obs): the screenshot as base64 (null when none), the rest as OSWorld's DesktopEnv gives it. */
export const guiObservationSchema = z
  .object({
    screenshot_b64: z.string().nullable().optional(),
    accessibility_tree: z.string().nullable().optional(),
    instruction: z.string().nullable().optional(),
  })
  .passthrough();
export type GuiObservation = z.infer<typeof guiObservationSchema>;

export const guiAllocateAnswerSchema = answer.extend({ lease_id: z.string().min(1), env_id: z.string().optional(), reused: z.boolean().optional() });
export const guiResetAnswerSchema = answer.extend({ observation: guiObservationSchema });
export const guiStepAnswerSchema = answer.extend({ observation: guiObservationSchema, reward: z.number().default(0), done: z.boolean().default(false), info: z.unknown().optional() });
export const guiEvaluateAnswerSchema = answer.extend({ score: z.number().min(0).max(1) });
export const guiPlainAnswerSchema = answer;
