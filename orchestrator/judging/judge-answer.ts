// Parses one judge answer: the text after a Qwen3 `<think>…</think>` block, its LAST `\boxed{n}` value and its
// last `[HINT_START]…[HINT_END]` block. Knows nothing of prompts, votes or HTTP.

export type JudgePurpose = "eval" | "hint";

export interface ParsedAnswer {
  /** The decision, or null when the answer has no (valid) final boxed value. */
  score: number | null;
  /** The hint text (trimmed), "" when there is none. */
  hint: string;
  /** Why score is null, for the records. */
  problem: string | null;
}

const BOXED = /\\boxed\{\s*([+-]?\d+)\s*\}/g;
const HINT = /\[HINT_START\]([\s\S]*?)\[HINT_END\]/g;
const ALLOWED: Record<JudgePurpose, readonly number[]> = { eval: [1, 0, -1], hint: [1, -1] };

/** The part of a judge answer after its reasoning; null when the reasoning never ended (cut by max_new_tokens). */
export function answerAfterThinking(text: string): string | null {
  const close = text.lastIndexOf("</think>");
  if (close >= 0) return text.slice(close + "</think>".length);
  if (text.includes("<think>")) return null;
  return text;
}

export function parseJudgeAnswer(text: string, purpose: JudgePurpose): ParsedAnswer {
  const answer = answerAfterThinking(text);
  if (answer === null) return { score: null, hint: "", problem: "reasoning never ended (no </think>)" };
  const boxed = [...answer.matchAll(BOXED)];
  const hints = [...answer.matchAll(HINT)];
  const hint = hints.length > 0 ? (hints[hints.length - 1]![1] ?? "").trim() : "";
  if (boxed.length === 0) return { score: null, hint, problem: "no \\boxed{} value" };
  const value = Number(boxed[boxed.length - 1]![1]);
  if (!ALLOWED[purpose].includes(value)) {
    return { score: null, hint, problem: `last \\boxed{${value}} is not one of ${ALLOWED[purpose].join(", ")}` };
  }
  return { score: value === 0 ? 0 : value, hint, problem: null };
}

/** Length in characters (code points, as Python's len), not UTF-16 units. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
