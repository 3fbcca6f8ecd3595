import { describe, expect, it } from "vitest";
import { alignLogProbs } from "../../orchestrator/proxy/passthrough-turn.ts";

const pieces: Record<number, string> = { 1: "Hello", 2: ",", 3: " world", 4: "<|im_end|>" };
const pieceOf = (id: number): string => pieces[id] ?? "?";

describe("alignLogProbs (passthrough)", () => {
  it("takes entries whose token text is the re-tokenized piece; the EOS SGLang's chat stream leaves out is missing, not 0-as-certain", () => {
    const entries = [
      { logprob: -0.5, token: "Hello" },
      { logprob: -0.1, token: "," },
      { logprob: -0.7, token: " world" },
    ];
    expect(alignLogProbs([1, 2, 3, 4], entries, pieceOf)).toEqual({ logProbs: [-0.5, -0.1, -0.7, 0], missing: [3] });
  });

  it("marks positions whose token text differs (re-tokenized text split another way), non-finite values and surplus ids", () => {
    const entries = [
      { logprob: -0.5, token: "Hel" },
      { logprob: Number.NaN },
      { logprob: -0.7, token: " world" },
    ];
    expect(alignLogProbs([1, 2, 3, 4, 4], entries, pieceOf)).toEqual({ logProbs: [0, 0, -0.7, 0, 0], missing: [0, 1, 3, 4] });
  });

  it("accepts entries without token text by position", () => {
    expect(alignLogProbs([1, 2], [{ logprob: -1 }, { logprob: -2 }], pieceOf)).toEqual({ logProbs: [-1, -2], missing: [] });
  });
});
