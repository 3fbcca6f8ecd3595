// Builds the Sample of kind "hybrid" from a turn, its dispatch and its hinted prompts' ids: the turn's own record
// (sample-builder.ts) plus one candidate per hint, each the hinted prompt's ids followed by the response's exact ids.
// Renders nothing: the hinted prompts come rendered with the policy's chat template and tokenized (hinted-prompt.ts).
import type { ClosedTurn } from "../../contracts/turn.ts";
import { plainArray } from "../../lib/worker-thread.ts";
import type { HybridDispatch } from "./hybrid-dispatch.ts";
import { buildSample, type BuildResult } from "./sample-builder.ts";

export interface HybridBuildInput {
  turn: ClosedTurn;
  dispatch: Extract<HybridDispatch, { make: true }>;
  /** One hinted prompt's ids per `dispatch.hints` entry, in that order, ending with the generation prompt. */
  hintedPrompts: readonly (readonly number[])[];
  evalScore: number | null;
  now: number;
}

export function buildHybridSample({ turn, dispatch, hintedPrompts, evalScore, now }: HybridBuildInput): BuildResult {
  if (hintedPrompts.length !== dispatch.hints.length) {
    return { ok: false, reason: `${hintedPrompts.length} hinted prompts for ${dispatch.hints.length} kept hints` };
  }
  const decision = { make: true, kind: "hybrid", reward: dispatch.reward, teacher: "none", masked: false, promoted: false, why: dispatch.why } as const;
  const built = buildSample({ turn, decision, teacher: null, evalScore, now });
  if (!built.ok) return built;
  const prompts = dispatch.case === "evaluation-only" ? [plainArray(turn.promptIds)] : hintedPrompts;
  const empty = prompts.findIndex((prompt) => prompt.length === 0);
  if (empty >= 0) return { ok: false, reason: `hint candidate ${empty} has an empty prompt` };
  built.sample.hintCandidates = prompts.map((prompt) => [...prompt, ...turn.responseIds]);
  return built;
}
