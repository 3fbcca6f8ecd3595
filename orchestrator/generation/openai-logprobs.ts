// Engine token log-probs → OpenAI chat `logprobs.content` entries: the token's text, its UTF-8 bytes, the log-prob
// and the alternatives, written the way SGLang's own chat endpoint writes them. Ignores streaming and HTTP.
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import type { TokenBatch } from "./generation.ts";

export interface OpenAiTopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface OpenAiLogprob extends OpenAiTopLogprob {
  top_logprobs: OpenAiTopLogprob[];
}

export class OpenAiLogprobs {
  constructor(private readonly tokenizer: ModelTokenizer) {}

  /**
   * One entry per generated token of the batch, special tokens (the end-of-turn token that stops generation) left
   * out: they are not part of the message. A token alone can be part of a character; its text then holds U+FFFD, as
   * in SGLang.
   */
  of(batch: Pick<TokenBatch, "ids" | "logProbs" | "top">): OpenAiLogprob[] {
    const entries: OpenAiLogprob[] = [];
    batch.ids.forEach((id, index) => {
      if (this.tokenizer.specialIds.has(id)) return;
      const alternatives = batch.top?.[index] ?? [];
      entries.push({ ...this.entry(id, batch.logProbs[index]!), top_logprobs: alternatives.map(([logprob, other]) => this.entry(other, logprob)) });
    });
    return entries;
  }

  private entry(id: number, logprob: number): OpenAiTopLogprob {
    const token = this.tokenizer.tokenText(id);
    return { token, logprob, bytes: [...Buffer.from(token, "utf8")] };
  }
}
