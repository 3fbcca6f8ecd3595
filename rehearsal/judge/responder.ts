// The stand-in judge / teacher as a Responder: answers the evaluation and hint prompts in the judge formats
// (`\boxed{n}`, `[HINT_START]…[HINT_END]`) from cues in the next state, scores hinted prompts as the OPD teacher,
// and plays the held-out evaluation's simulated user and scorer (evaluation-responder.ts).
import { evaluationReply } from "./evaluation-responder.ts";
import { hintOf, rejectedStyleShare, verdictOf } from "./cues.ts";
import { HintVotes } from "./hint-votes.ts";
import { readPrompt } from "../model/prompt-reader.ts";
import { REJECTED_STYLE, REPLY_STYLES, stylePositions, styleTokens, type StyleTokens } from "../policy/reply-styles.ts";
import { hashScore, type Responder, type ResponderReply, type ResponderRequest, type ScoreRequest, type StandinTokenizer } from "../model/responder.ts";

const NEXT_STATE = /## The next state[^\n]*\[role: (\w+)\]\n([\s\S]*?)\n\n(?:Does the next state|Give your decision)/;
const RESPONSE = /## The assistant's response\n([\s\S]*?)\n\n## The next state/;

/** The teacher's style log-probs when it gives the rejected style `rejectedShare` (cues.ts rejectedStyleShare):
 * uniform at a third, which is the stand-in policy's base; it dislikes the rejected style once a "be natural" hint says so. */
export function teacherStyleLogprobs(rejectedShare = 1 / REPLY_STYLES.length): number[] {
  const rejected = REPLY_STYLES.findIndex((style) => style.name === REJECTED_STYLE);
  const others = REPLY_STYLES.length - 1;
  return REPLY_STYLES.map((_, index) => Math.log(index === rejected ? rejectedShare : (1 - rejectedShare) / others));
}

export class JudgeResponder implements Responder {
  readonly answered = { eval: 0, hint: 0, evaluation: 0, other: 0 };

  /** The tokenizer's style tokens are found first (the tokenizer encodes asynchronously). */
  /** `hintVariants`: the asks of one hint prompt vary (hint-votes.ts), from a cycle whose start `seed` sets. */
  static async create(tokenizer: StandinTokenizer, options: { seed?: number; hintVariants?: boolean } = {}): Promise<JudgeResponder> {
    return new JudgeResponder(await styleTokens(tokenizer), new HintVotes(options.seed ?? 0, options.hintVariants ?? false));
  }

  private constructor(
    readonly tokens: StyleTokens,
    private readonly hintVotes: HintVotes,
  ) {}

  reply(request: ResponderRequest): ResponderReply {
    const evaluation = evaluationReply(request.promptText);
    if (evaluation !== null) {
      this.answered.evaluation += 1;
      return { text: evaluation };
    }
    const prompt = readPrompt(request.promptText);
    const userText = prompt.turns.filter((turn) => turn.role === "user").at(-1)?.text ?? "";
    const match = NEXT_STATE.exec(userText);
    const wantsHint = request.promptText.includes("[HINT_START]");
    if (!match) {
      this.answered.other += 1;
      return { text: "<think>\nI cannot find a next state to judge.\n</think>\n\nNothing to judge here. \\boxed{0}" };
    }
    const role = match[1] ?? "user";
    const nextState = match[2] ?? "";
    const { verdict, reason } = verdictOf(nextState, role, RESPONSE.exec(userText)?.[1] ?? "");
    if (!wantsHint) {
      this.answered.eval += 1;
      return { text: `<think>\nLooking at the next state: ${reason}.\n</think>\n\nThe next state shows that ${reason}. \\boxed{${verdict}}` };
    }
    this.answered.hint += 1;
    const vote = this.hintVotes.next(request.promptText, hintOf(nextState, role));
    return {
      text:
        vote.score === 1
          ? `<think>\nThe next state reveals what the user wanted.\n</think>\n\n\\boxed{1}\n[HINT_START]${vote.hint}[HINT_END]`
          : "<think>\nThe next state reveals nothing the assistant could have used.\n</think>\n\n\\boxed{-1}",
    };
  }

  /** Teacher log-probs: the same hash as the policy everywhere, the teacher's style opinion on decision tokens. */
  score(request: ScoreRequest): number[] {
    const scores = hashScore(request.inputIds);
    const styles = teacherStyleLogprobs(rejectedStyleShare(request.promptText));
    for (const { position, style } of stylePositions(request.inputIds, this.tokens)) scores[position] = styles[style] as number;
    return scores;
  }

  describe(): Record<string, unknown> {
    return { answered: this.answered };
  }
}
