// Explicit feedback: a next-state message that is plainly approval or disapproval (👍 / 👎, "+1", "thumbs up"…),
// the feedback a closed turn came with, and the zod shape of POST /v1/feedback. Detection is deliberately strict:
// anything more is the judge's job.
import { z } from "zod";
import type { ClosedTurn } from "../../contracts/turn.ts";

export interface ExplicitFeedback {
  score: number | null;
  hint: string | null;
  source: "message" | "endpoint";
}

/** OpenClaw prefixes user messages with `[Sun 2026-11-22 06:25 UTC] `; the prefix is not part of what the user said. */
const TIMESTAMP_PREFIX = /^\s*\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\s+\d{4}-\d{2}-\d{2}\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s+[A-Za-z][A-Za-z0-9+:\-/_]*)?\]\s*/;

const APPROVAL = ["👍", "+1", ":+1:", ":thumbsup:", "thumbs up", "thumbs-up", "thumbsup", "👌", "✅"];
const DISAPPROVAL = ["👎", "-1", ":-1:", ":thumbsdown:", "thumbs down", "thumbs-down", "thumbsdown", "❌"];
/** Emoji skin-tone modifiers and variation selectors that may follow a thumb. */
const MODIFIERS = /[\u{1F3FB}-\u{1F3FF}\u{FE0E}\u{FE0F}]/gu;
/** What may surround the markers: spaces and punctuation (e.g. "👍👍!", "+1."). */
const FILLER = /^[\s.!,;:~)(]*$/u;

/** The feedback a turn came with: what the endpoint held for it, else a next state that is plainly 👍 / 👎. */
export function explicitFeedback(turn: ClosedTurn, held: ExplicitFeedback | null): ExplicitFeedback | null {
  if (held && (held.score !== null || held.hint !== null)) {
    if (held.score === null && turn.nextState?.role === "user") {
      const detected = detectExplicitScore(turn.nextState.text);
      if (detected !== null) return { ...held, score: detected };
    }
    return held;
  }
  if (turn.nextState?.role !== "user") return null;
  const score = detectExplicitScore(turn.nextState.text);
  return score === null ? null : { score, hint: null, source: "message" };
}

export function stripTimestampPrefix(text: string): string {
  return text.replace(TIMESTAMP_PREFIX, "");
}

/** +1 / −1 when the text is nothing but approval / disapproval markers (repeated, with punctuation); else null. */
export function detectExplicitScore(text: string): number | null {
  let rest = stripTimestampPrefix(text).replace(MODIFIERS, "").toLowerCase();
  if (rest.trim().length === 0 || rest.length > 80) return null;
  let approvals = 0;
  let disapprovals = 0;
  const markers = [...APPROVAL.map((marker) => [marker, 1] as const), ...DISAPPROVAL.map((marker) => [marker, -1] as const)].sort((a, b) => b[0].length - a[0].length);
  for (const [marker, sign] of markers) {
    const pieces = rest.split(marker);
    const found = pieces.length - 1;
    if (found === 0) continue;
    if (sign > 0) approvals += found;
    else disapprovals += found;
    rest = pieces.join(" ");
  }
  if (!FILLER.test(rest)) return null;
  if (approvals > 0 && disapprovals === 0) return 1;
  if (disapprovals > 0 && approvals === 0) return -1;
  return null;
}

export const feedbackBodySchema = z
  .object({
    session_id: z.string().min(1, "session_id must be a non-empty string"),
    turn: z.number().int().min(0).optional(),
    score: z.union([z.literal(1), z.literal(0), z.literal(-1)], { message: "score must be 1, 0 or -1" }).optional(),
    hint: z.string().trim().min(1, "hint must not be empty").max(4000, "hint must be at most 4000 characters").optional(),
  })
  .strict()
  .refine((body) => body.score !== undefined || body.hint !== undefined, { message: "give a score, a hint, or both", path: ["score"] });
export type FeedbackBody = z.infer<typeof feedbackBodySchema>;
