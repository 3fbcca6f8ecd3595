// The sample gate: whether a closed turn's response is fit to train on at all, before anyone judges it. Drawn
// off-policy, cut at the token limit, empty or near-empty, stuck in a repetition loop: no sample, with a reason. Pure;
// aborted turns that were never continued are refused by sample-builder's unusableTurnReason whatever the gate says
// (turnRefusal gives both answers).
import type { SkipCategory } from "../../contracts/events.ts";
import type { SampleGateSettings } from "../../contracts/recipe.ts";
import type { AssistantMessage } from "../../contracts/chat.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { drawnValues } from "../generation/sampling-params.ts";
import { unusableTurnReason } from "./sample-builder.ts";

export type GateCategory = "off-policy" | "truncated" | "near-empty" | "repetition";

export type GateVerdict = { pass: true } | { pass: false; category: GateCategory; reason: string };

/** Why a turn can never be trained, with the gate's refusal when it was the gate's. */
export interface TurnRefusal {
  skipped: string;
  category: SkipCategory;
  gate: { category: GateCategory; reason: string } | null;
}

/** Why a turn can never be trained (null when it can): unusable (aborted, empty, log-probs or versions that do not fit), or gated. */
export function turnRefusal(turn: ClosedTurn, settings: SampleGateSettings): TurnRefusal | null {
  const unusable = unusableTurnReason(turn);
  if (unusable) return { skipped: unusable, category: turn.finishReason === "abort" ? "aborted" : turn.responseIds.length === 0 ? "empty-response" : "invalid-turn", gate: null };
  const gate = gateTurn(turn, settings);
  if (gate.pass) return null;
  return { skipped: `sample gate: ${gate.reason}`, category: gate.category, gate: { category: gate.category, reason: gate.reason } };
}

/**
 * The gate's decision on one turn. A turn drawn with another distribution than the trainer's (the client's settings,
 * honoured) is never trained; `settings.enabled: false` passes everything else.
 */
export function gateTurn(turn: Pick<ClosedTurn, "finishReason" | "responseIds" | "response" | "sampling">, settings: SampleGateSettings): GateVerdict {
  if (turn.sampling && !turn.sampling.onPolicy) {
    const drawn = Object.entries(drawnValues(turn.sampling))
      .map(([key, value]) => `${key} ${String(value)}`)
      .join(", ");
    const why = turn.sampling.constrained
      ? `drawn under a grammar (${turn.sampling.constrained}), which masks tokens slime's recomputed log-probs do not`
      : `drawn off-policy with the client's sampling (${drawn}; sampling.client_settings: honor): slime trains the rollout temperature with no filter or penalty`;
    return { pass: false, category: "off-policy", reason: why };
  }
  if (!settings.enabled) return { pass: true };
  if (settings.drop_truncated && turn.finishReason === "length") {
    return { pass: false, category: "truncated", reason: `cut at the token limit (finish reason length, ${turn.responseIds.length} tokens; training.sample_gate.drop_truncated)` };
  }
  const loop = measureRepetition(turn.responseIds, settings.loop_window_tokens, settings.loop_ngram_tokens);
  if (loop.window >= settings.loop_min_tokens && loop.repeatFraction >= settings.max_repeat_fraction) {
    return {
      pass: false,
      category: "repetition",
      reason: `repetition loop: ${percent(loop.repeatFraction)} of the ${settings.loop_ngram_tokens}-token sequences in the last ${loop.window} tokens repeat earlier ones (at least ${percent(settings.max_repeat_fraction)}: training.sample_gate.max_repeat_fraction)`,
    };
  }
  const chars = answerCharCount(turn.response);
  if (chars < settings.min_answer_chars) {
    return { pass: false, category: "near-empty", reason: `near-empty answer: ${chars} visible character(s) and no tool call (fewer than training.sample_gate.min_answer_chars ${settings.min_answer_chars})` };
  }
  return { pass: true };
}

export interface RepetitionMeasure {
  /** Tokens looked at: the response's last `windowTokens` (all of a shorter response). */
  window: number;
  /** Of the window's n-grams, the share that already occurred earlier in the window (0 for a window shorter than n). */
  repeatFraction: number;
}

/**
 * How much of the response's tail is a loop: the share of its n-grams of token ids that are repeats. A loop of period
 * p fills a window of w tokens with about p distinct n-grams (repeat share 1 − p/w); prose, tables and code whose rows
 * differ in a value make mostly new n-grams, since every n-gram spanning the differing token is new. O(window).
 */
export function measureRepetition(responseIds: readonly number[], windowTokens: number, ngram: number): RepetitionMeasure {
  const tail = responseIds.slice(Math.max(0, responseIds.length - windowTokens));
  const total = tail.length - ngram + 1;
  if (total <= 0) return { window: tail.length, repeatFraction: 0 };
  const seen = new Set<string>();
  let repeats = 0;
  for (let start = 0; start < total; start += 1) {
    const key = tail.slice(start, start + ngram).join(",");
    if (seen.has(key)) repeats += 1;
    else seen.add(key);
  }
  return { window: tail.length, repeatFraction: repeats / total };
}

/** Visible answer characters, whitespace left out; a tool call counts as an answer (returns Infinity). */
export function answerCharCount(response: AssistantMessage): number {
  if ((response.tool_calls?.length ?? 0) > 0) return Number.POSITIVE_INFINITY;
  return (response.content ?? "").replace(/\s+/gu, "").length;
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}
