// The stand-in policy's reply styles and its one learnable decision: which style opens a plain answer. The
// opener's first token (right after `</think>\n\n`) carries the choice and its log-prob; everything else is fixed.
import { decisionPositions, decisionTokens } from "./decision-tokens.ts";
import type { StandinTokenizer } from "../model/responder.ts";

export interface ReplyStyle {
  name: "plain" | "bulleted" | "ai";
  /** The first word of the answer; its first token is the style's decision token. */
  opener: string;
  render(topic: string, detail: string): string;
}

export const REPLY_STYLES: readonly ReplyStyle[] = [
  { name: "plain", opener: "Sure", render: (topic, detail) => `Sure. For ${topic}: ${detail}` },
  { name: "bulleted", opener: "Here", render: (topic, detail) => `Here is the short version for ${topic}:\n- ${detail}\n- Start small and check the result.` },
  { name: "ai", opener: "As", render: (topic, detail) => `As an AI language model, I can tell you that for ${topic}, ${detail} I hope this helps!` },
];

/** The style the scripted user rejects ("that sounds like an AI"). */
export const REJECTED_STYLE = "ai";

/** Text right before the decision token: the end of the reasoning block. */
export const THINK_END = "</think>";
export const THINK_GAP = "\n\n";

export interface StyleTokens {
  /** Decision token id of each style, in REPLY_STYLES order. */
  styleIds: number[];
  /** Ids of `</think>\n\n` (two tokens in Qwen3's vocabulary, more in others): the decision token follows them. */
  markerIds: number[];
}

export async function styleTokens(tokenizer: StandinTokenizer): Promise<StyleTokens> {
  const { markerIds, choiceIds } = await decisionTokens(tokenizer, `${THINK_END}${THINK_GAP}`, REPLY_STYLES.map((style) => style.opener), "reply style");
  return { styleIds: choiceIds, markerIds };
}

/** Positions p of `ids` holding a style decision (the marker's ids right before p, ids[p] a style id), with the style index. */
export function stylePositions(ids: readonly number[], tokens: StyleTokens): Array<{ position: number; style: number }> {
  return decisionPositions(ids, { markerIds: tokens.markerIds, choiceIds: tokens.styleIds }).map(({ position, choice }) => ({ position, style: choice }));
}

/** Which style a reply text is written in (by its opener after the reasoning), or null. */
export function styleOfText(text: string): ReplyStyle["name"] | null {
  const answer = text.includes(THINK_END) ? text.slice(text.lastIndexOf(THINK_END) + THINK_END.length).trimStart() : text.trimStart();
  if (/^As an AI language model/.test(answer)) return "ai";
  if (/^Here is the short version/.test(answer)) return "bulleted";
  if (/^Sure\./.test(answer)) return "plain";
  return null;
}

export function logSoftmax(logits: readonly number[]): number[] {
  const max = Math.max(...logits);
  const total = logits.reduce((sum, value) => sum + Math.exp(value - max), 0);
  return logits.map((value) => value - max - Math.log(total));
}
