// The stand-in policy as a Responder: plans the reply (tool call or styled answer), picks the style from the
// StylePolicy, reports that choice's log-prob on its decision token and continues partial replies after aborts.
import { approachPositions, approachTokens, APPROACHES, planEpisodeStep, type ApproachTokens } from "./agent-approach.ts";
import { lastConversationTurn, readPrompt } from "../model/prompt-reader.ts";
import { planReply } from "./reply-composer.ts";
import { REPLY_STYLES, stylePositions, styleTokens, type StyleTokens } from "./reply-styles.ts";
import { hashScore, type Responder, type ResponderReply, type ResponderRequest, type ScoreRequest, type StandinTokenizer } from "../model/responder.ts";
import { StylePolicy } from "./style-policy.ts";

export class PolicyResponder implements Responder {
  readonly policy: StylePolicy;
  /** Styles chosen so far, by weight version (what `status`/tests read through GET /standin/state). */
  readonly choices: Record<string, Record<string, number>> = {};

  /** The tokenizer's style tokens are found first (the tokenizer encodes asynchronously). */
  static async create(tokenizer: StandinTokenizer, options: { seed: number; logits?: number[]; approachLogits?: number[] }): Promise<PolicyResponder> {
    return new PolicyResponder(tokenizer, await styleTokens(tokenizer), await approachTokens(tokenizer), options);
  }

  /** Agent approaches chosen so far, by weight version. */
  readonly approaches: Record<string, Record<string, number>> = {};

  private constructor(
    private readonly tokenizer: StandinTokenizer,
    readonly tokens: StyleTokens,
    readonly approachIds: ApproachTokens,
    options: { seed: number; logits?: number[]; approachLogits?: number[] },
  ) {
    this.policy = new StylePolicy(options);
  }

  async reply(request: ResponderRequest): Promise<ResponderReply> {
    const prompt = readPrompt(request.promptText);
    const greedy = request.samplingParams.temperature === 0;
    const episode = planEpisodeStep(prompt, lastConversationTurn(prompt));
    const plan = episode ? null : planReply(prompt);
    let text: string;
    if (episode?.kind === "fixed") text = episode.text;
    else if (episode?.kind === "approach") {
      const fixed = await this.approachInPartial(prompt.partialReply);
      const approach = fixed ?? this.policy.chooseApproach(greedy);
      if (fixed === null) tally(this.approaches, request.weightVersion, APPROACHES[approach]!.name);
      text = episode.text(approach);
    } else if (plan!.kind === "tool") text = plan!.text;
    else {
      const fixed = await this.styleInPartial(prompt.partialReply);
      const style = fixed ?? this.policy.choose(greedy);
      if (fixed === null) this.count(request.weightVersion, style);
      text = (plan as Extract<typeof plan, { kind: "answer" }>).text(style);
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
    return {
      ...this.policy.describe(),
      style_token_ids: this.tokens.styleIds,
      marker_ids: this.tokens.markerIds,
      choices: this.choices,
      approach_token_ids: this.approachIds.choiceIds,
      approach_marker_ids: this.approachIds.markerIds,
      approaches: this.approaches,
    };
  }

  /** Hash log-probs everywhere, the policy's log-prob on every style decision token. */
  private scoreIds(ids: readonly number[]): number[] {
    const scores = hashScore(ids);
    const logprobs = this.policy.logprobs();
    for (const { position, style } of stylePositions(ids, this.tokens)) scores[position] = logprobs[style] as number;
    const approach = this.policy.approachLogprobs();
    for (const { position, choice } of approachPositions(ids, this.approachIds)) scores[position] = approach[choice] as number;
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
    tally(this.choices, version, REPLY_STYLES[style]?.name ?? String(style));
  }

  private async approachInPartial(partial: string): Promise<number | null> {
    if (partial.length === 0) return null;
    const found = approachPositions(await this.tokenizer.encode(partial), this.approachIds);
    return found.length > 0 ? (found[0] as { choice: number }).choice : null;
  }
}


function tally(table: Record<string, Record<string, number>>, version: string, name: string): void {
  const perVersion = (table[version] ??= {});
  perVersion[name] = (perVersion[name] ?? 0) + 1;
}
