// The interfaces a stand-in SGLang server is built from: the tokenizer it encodes/decodes with and the Responder
// that decides what "the model" says and how likely each token is. Pure types and defaults; no HTTP, no files.
import type { ChatMessage, Tool } from "../../contracts/chat.ts";

/** What the stand-in needs of a tokenizer. lib/model's ModelTokenizer satisfies it. */
export interface StandinTokenizer {
  encode(text: string): Promise<number[]>;
  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): string;
  /** Id of an added token such as `<|im_end|>`. */
  tokenId(content: string): number | undefined;
}

/** Renders a chat (OpenAI messages + tools) to the prompt text; lib/model's ChatTemplate satisfies it. */
export interface StandinChatTemplate {
  render(messages: readonly ChatMessage[], options: { tools?: Tool[] | null; addGenerationPrompt: boolean }): string;
}

export interface ResponderRequest {
  /** Decoded prompt (special tokens kept), i.e. the rendered chat template the client sent. */
  promptText: string;
  inputIds: readonly number[];
  samplingParams: Readonly<Record<string, unknown>>;
  rid: string;
  weightVersion: string;
}

export interface ResponderReply {
  /** Reply text, tokenized by the server. Ignored when tokenIds is given. */
  text?: string;
  tokenIds?: number[];
  /** Log-prob of each reply token (same length as the tokens); missing entries come from a deterministic hash. */
  logprobs?: number[];
  /** End with the stop token `<|im_end|>` (default true); false: the reply runs out and finishes with length. */
  appendStop?: boolean;
}

export interface ScoreRequest {
  inputIds: readonly number[];
  promptText: string;
  weightVersion: string;
}

export interface Responder {
  reply(request: ResponderRequest): ResponderReply | Promise<ResponderReply>;
  /**
   * Prefill scoring: result[p] = log P(inputIds[p] | inputIds[:p]) for p >= 1 (result[0] is ignored).
   * Optional; the server falls back to hashScore.
   */
  score?(request: ScoreRequest): number[] | Promise<number[]>;
  /** Loads new "weights" (POST /update_weights_from_disk model_path). Optional. */
  loadWeights?(modelPath: string): void | Promise<void>;
  /** The current weights as JSON, saved so a restarted stand-in can take them back (importWeights). Optional. */
  exportWeights?(): unknown;
  /** Takes back weights that exportWeights gave; throws on anything else. Optional. */
  importWeights?(weights: unknown): void;
  /** What GET /standin/state shows of the responder (e.g. the stand-in policy's style probabilities). Optional. */
  describe?(): unknown;
}

/** FNV-1a over a few integers: a stable pseudo-random value in [0, 1). */
export function hashUnit(...values: number[]): number {
  let hash = 0x811c9dc5;
  for (const value of values) {
    let v = value | 0;
    for (let i = 0; i < 4; i += 1) {
      hash ^= v & 0xff;
      hash = Math.imul(hash, 0x01000193);
      v >>>= 8;
    }
  }
  return (hash >>> 0) / 0x1_0000_0000;
}

/** Deterministic log-prob of `token` after `previous` (a stand-in for a model's opinion): in [-4, -0.01]. */
export function hashLogprob(previous: number, token: number): number {
  const unit = hashUnit(previous, token);
  return -(0.01 + 3.99 * unit * unit);
}

/** Deterministic prefill scores: result[p] for p >= 1 depends on the previous and the current token. */
export function hashScore(inputIds: readonly number[]): number[] {
  return inputIds.map((token, position) => (position === 0 ? 0 : hashLogprob(inputIds[position - 1] ?? 0, token)));
}

/**
 * A top-K row around a token whose log-prob is known: K distinct ids sorted by log-prob, descending. The rest of
 * the probability mass is spread geometrically over hash-chosen other ids, so the actual token is in the row
 * exactly when it ranks among the K most likely.
 */
export function topRow(token: number, logprob: number, k: number, vocabSize = 151_643): Array<[number, number]> {
  if (k <= 0) return [];
  const rest = Math.max(1 - Math.exp(logprob), 1e-6);
  const candidates: Array<[number, number]> = [[logprob, token]];
  const seen = new Set<number>([token]);
  for (let i = 0, salt = 0; candidates.length < k + 1; salt += 1) {
    const id = Math.floor(hashUnit(token, salt, 7919) * vocabSize);
    if (seen.has(id)) continue;
    seen.add(id);
    candidates.push([Math.log(rest * 0.5 ** (i + 1)), id]);
    i += 1;
  }
  candidates.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return candidates.slice(0, k);
}
