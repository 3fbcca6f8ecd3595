// A learnable decision of the stand-in policy as tokens: a marker text, then one token per choice (the first token of
// each choice's continuation). Finds those ids in a tokenizer's vocabulary and the positions where a decision was
// taken in a token list. Reply styles (reply-styles.ts) and agent approaches (agent-approach.ts) are two of them.
import type { StandinTokenizer } from "../model/responder.ts";

export interface DecisionTokens {
  /** The marker's ids: the decision token comes right after them. */
  markerIds: number[];
  /** Decision token id of each choice, in the choices' order. */
  choiceIds: number[];
}

/**
 * The marker's ids and each continuation's first token after them; `what` names the decision in the error thrown when
 * the marker does not tokenize the same with a continuation after it, or two choices share a first token.
 */
export async function decisionTokens(tokenizer: StandinTokenizer, marker: string, continuations: readonly string[], what: string): Promise<DecisionTokens> {
  const markerIds = await tokenizer.encode(marker);
  const choiceIds = await Promise.all(
    continuations.map(async (continuation) => {
      const ids = await tokenizer.encode(`${marker}${continuation}`);
      return markerIds.every((id, index) => ids[index] === id) ? ids[markerIds.length] : undefined;
    }),
  );
  if (markerIds.length === 0 || choiceIds.some((id) => id === undefined) || new Set(choiceIds).size !== choiceIds.length) {
    throw new Error(`the tokenizer does not give each ${what} its own decision token after ${JSON.stringify(marker)}`);
  }
  return { markerIds, choiceIds: choiceIds as number[] };
}

/** Positions p of `ids` holding a decision (the marker's ids right before p, ids[p] a choice's id), with the choice index. */
export function decisionPositions(ids: readonly number[], tokens: DecisionTokens): Array<{ position: number; choice: number }> {
  const found: Array<{ position: number; choice: number }> = [];
  const width = tokens.markerIds.length;
  for (let position = width; position < ids.length; position += 1) {
    if (!tokens.markerIds.every((id, index) => ids[position - width + index] === id)) continue;
    const choice = tokens.choiceIds.indexOf(ids[position] as number);
    if (choice >= 0) found.push({ position, choice });
  }
  return found;
}
