// The stand-in policy as a Responder: plans the reply (tool call or styled answer), picks the style from the
// StylePolicy, reports that choice's log-prob on its decision token and continues partial replies after aborts.
import { readPrompt } from "./prompt-reader.ts";
import { planReply } from "./reply-composer.ts";
import { REPLY_STYLES, stylePositions, styleTokens, type StyleTokens } from "./reply-styles.ts";
import { hashScore, type Responder, type ResponderReply, type ResponderRequest, type ScoreRequest, type StandinTokenizer } from "./standin-model.ts";
import { StylePolicy } from "./style-policy.ts";

export class PolicyResponder implements Responder {
  readonly policy: StylePolicy;
  /** Styles chosen so far, by weight version (what `status`/tests read through GET /standin/state). */
  readonly choices: Record<string, Record<string, number>> = {};

  /** The tokenizer's style tokens are found first (the tokenizer encodes asynchronously). */
  static async create(tokenizer: StandinTokenizer, options: { seed: number; logits?: number[] }): Promise<PolicyResponder> {
    return new PolicyResponder(tokenizer, await styleTokens(tokenizer), options);
  }

  private constructor(
    private readonly tokenizer: StandinTokenizer,
    readonly tokens: StyleTokens,
    options: { seed: number; logits?: number[] },
  ) {
    this.policy = new StylePolicy(options);
  }

  async reply(request: ResponderRequest): Promise<ResponderReply> {
    const prompt = readPrompt(request.promptText);
    const plan = planReply(prompt);
    const greedy = request.samplingParams.temperature === 0;
    let text: string;
    if (plan.kind === "tool") text = plan.text;
    else {
      const fixed = await this.styleInPartial(prompt.partialReply);
      const style = fixed ?? this.policy.choose(greedy);
      if (fixed === null) this.count(request.weightVersion, style);
      text = plan.text(style);
    }
    const fullIds = await this.tokenizer.encode(text);
    const partialIds = prompt.partialReply.length > 0 ? await this.partialIds(request.inputIds, prompt.head, prompt.partialReply) : [];
    const startsWithPartial = partialIds.every((id, index) => fullIds[index] === id);
    if (!startsWithPartial) return { tokenIds: [], logprobs: [] }; // cannot continue this text: end the turn
    const context = [...request.inputIds.slice(0, request.inputIds.length - partialIds.length), ...fullIds];
    const scores = this.scoreIds(context);
    const offset = request.inputIds.length;
    const remainder = fullIds.slice(partialIds.length);
    return { tokenIds: remainder, logprobs: remainder.map((_, index) => scores[offset + index] as number) };
  }

  score(request: ScoreRequest): number[] {
    return this.scoreIds(request.inputIds);
  }

  async loadWeights(modelPath: string): Promise<void> {
    await this.policy.load(modelPath);
  }

  exportWeights(): unknown {
    return this.policy.file();
  }

  importWeights(weights: unknown): void {
    this.policy.restore(weights, "the saved weight state");
  }

  describe(): Record<string, unknown> {
    return { ...this.policy.describe(), style_token_ids: this.tokens.styleIds, marker_ids: this.tokens.markerIds, choices: this.choices };
  }

  /** Hash log-probs everywhere, the policy's log-prob on every style decision token. */
  private scoreIds(ids: readonly number[]): number[] {
    const scores = hashScore(ids);
    const logprobs = this.policy.logprobs();
    for (const { position, style } of stylePositions(ids, this.tokens)) scores[position] = logprobs[style] as number;
    return scores;
  }

  private async styleInPartial(partial: string): Promise<number | null> {
    if (partial.length === 0) return null;
    const found = stylePositions(await this.tokenizer.encode(partial), this.tokens);
    return found.length > 0 ? (found[0] as { style: number }).style : null;
  }

  private async partialIds(inputIds: readonly number[], head: string, partial: string): Promise<number[]> {
    const headLength = (await this.tokenizer.encode(head)).length;
    const tail = inputIds.slice(headLength);
    return this.tokenizer.decode(tail, { skipSpecialTokens: false }) === partial ? [...tail] : this.tokenizer.encode(partial);
  }

  private count(version: string, style: number): void {
    const name = REPLY_STYLES[style]?.name ?? String(style);
    const perVersion = (this.choices[version] ??= {});
    perVersion[name] = (perVersion[name] ?? 0) + 1;
  }
}

