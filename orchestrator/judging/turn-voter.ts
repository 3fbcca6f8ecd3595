// The votes one turn needs: evaluation and/or hint vote sets asked concurrently from the judge client, each vote
// handed to onVote as it lands; a set whose votes ALL failed is asked again, alone, a bounded number
// of times after a delay. Deciding what the votes mean is vote-tally's and the dispatch table's job.
import { sleepUnlessAborted } from "../../lib/abortable-sleep.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import type { JudgePurpose } from "./judge-answer.ts";
import type { JudgeClient } from "./judge-client.ts";
import { evaluationPrompt, hintPrompt, responseTextForJudge } from "./judge-prompts.ts";
import type { Vote } from "./vote-tally.ts";

export interface TurnVoterOptions {
  client: JudgeClient;
  /** Each vote as it lands (the pipeline announces it: judge-vote). */
  onVote: (turn: ClosedTurn, purpose: JudgePurpose, vote: Vote) => void;
  signal: AbortSignal;
  turnRetries: number;
  turnRetryDelayMs: number;
}

export interface TurnVotes {
  evalVotes: Vote[] | null;
  hintVotes: Vote[] | null;
  /** How many times the judge was asked (1 + turn-level retries used). */
  attempts: number;
}

export class TurnVoter {
  constructor(private readonly options: TurnVoterOptions) {}

  async collect(turn: ClosedTurn, needEval: boolean, needHint: boolean): Promise<TurnVotes> {
    let evalVotes: Vote[] | null = null;
    let hintVotes: Vote[] | null = null;
    let attempts = 0;
    for (;;) {
      const askEval: boolean = needEval && (evalVotes === null || allFailed(evalVotes));
      const askHint: boolean = needHint && (hintVotes === null || allFailed(hintVotes));
      if (!askEval && !askHint) break;
      attempts += 1;
      const [nextEval, nextHint]: [Vote[] | null, Vote[] | null] = await Promise.all([askEval ? this.ask(turn, "eval") : null, askHint ? this.ask(turn, "hint") : null]);
      if (nextEval) evalVotes = nextEval;
      if (nextHint) hintVotes = nextHint;
      const failing = (needEval && allFailed(evalVotes!)) || (needHint && allFailed(hintVotes!));
      if (!failing || attempts > this.options.turnRetries || this.options.signal.aborted) break;
      await sleepUnlessAborted(this.options.turnRetryDelayMs, this.options.signal);
    }
    return { evalVotes, hintVotes, attempts: Math.max(attempts, 1) };
  }

  private ask(turn: ClosedTurn, purpose: JudgePurpose): Promise<Vote[]> {
    const nextState = turn.nextState!;
    const responseText = responseTextForJudge(turn.response);
    const messages = purpose === "eval" ? evaluationPrompt(responseText, nextState.text, nextState.role) : hintPrompt(responseText, nextState.text, nextState.role);
    return this.options.client.vote(purpose, messages, undefined, (vote) => this.options.onVote(turn, purpose, vote));
  }
}

export function allFailed(votes: readonly Vote[]): boolean {
  return votes.length > 0 && votes.every((vote) => vote.score === null);
}
