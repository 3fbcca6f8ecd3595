// Judges the steps of general-agent episodes: each step's score from the judge's votes on its next state, held in
// the episode book until its episode's outcome and its task group are in, then one sample per trainable step and the
// steps' records. Ignores chat turns and when steps are judged (judge-pipeline.ts).
import type { SkipCategory } from "../../contracts/events.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { SampleSink } from "../../contracts/sample-sink.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { EpisodeBook, type EpisodeEnd, type SettledGroup, type SettledStep } from "../episodes/episode-book.ts";
import { stepScoreOf } from "../episodes/step-rewards.ts";
import type { JudgementRecord } from "../records/judgement-records.ts";
import { buildSample } from "../samples/sample-builder.ts";
import { newJudgementRecord, recordVote, storeSample, type JudgingErrorReporter, type JudgingOutcome } from "./judgement-outcome.ts";
import type { TurnLedger } from "./turn-ledger.ts";
import type { TurnVoter } from "./turn-voter.ts";
import { tallyEvalVotes } from "./vote-tally.ts";

export type EpisodeStep = ClosedTurn & { episode: NonNullable<ClosedTurn["episode"]> };

export function isEpisodeStep(turn: ClosedTurn): turn is EpisodeStep {
  return turn.episode !== undefined;
}

export interface EpisodeStepJudgeDeps {
  recipe: Recipe;
  voter: TurnVoter;
  ledger: TurnLedger;
  sink: SampleSink;
  /** Why a turn can never be trained (the turn judge's rule), noting a gate refusal in the record. */
  refusal: (turn: ClosedTurn, record: JudgementRecord) => JudgingOutcome | null;
  /** Writes and announces a step's record with its outcome (the pipeline's, as for every turn). */
  settle: (turn: ClosedTurn, record: JudgementRecord, outcome: JudgingOutcome) => Promise<void>;
  /** Hands background work (a settled group being stored) to the pipeline, which drains it. */
  track: (work: Promise<void>) => void;
  reportError: JudgingErrorReporter;
}

export class EpisodeStepJudge {
  private readonly book: EpisodeBook<JudgementRecord>;
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly deps: EpisodeStepJudgeDeps) {
    const episodes = deps.recipe.episodes;
    this.book = new EpisodeBook({
      samplesPerTask: episodes.samples_per_task,
      prmStepCoef: episodes.prm_step_coef,
      groupTimeoutMs: episodes.group_timeout_s * 1000,
      onGroup: (group) => deps.track(this.storeGroup(group)),
    });
    this.sweep = setInterval(() => this.book.sweep(), Math.min(60_000, episodes.group_timeout_s * 250));
    this.sweep.unref();
  }

  /** A step closed (before it is judged): its episode's book counts it. */
  stepClosed(turn: EpisodeStep): void {
    this.book.stepClosed(turn);
  }

  /** An episode's outcome arrived (the episode-end event). */
  ended(end: EpisodeEnd): void {
    this.book.ended(end);
  }

  /** Stops the sweep and settles what is held: finished episodes of incomplete groups are trained as they are. */
  flush(): void {
    clearInterval(this.sweep);
    this.book.flush();
  }

  /** A step's score (the mean of the judge's valid votes on it, from its next state), held in the episode book. */
  async judge(turn: EpisodeStep, decided: JudgingOutcome | null): Promise<void> {
    const record = newJudgementRecord(turn, this.deps.recipe.method, null);
    const unusable = (decided ?? this.deps.refusal(turn, record))?.skipped ?? null;
    let stepScore: number | null = null;
    if (unusable === null && turn.nextState !== null) {
      const { evalVotes, attempts } = await this.deps.voter.collect(turn, true, false);
      record.attempt = attempts;
      if (evalVotes) {
        const tally = tallyEvalVotes(evalVotes);
        stepScore = stepScoreOf(evalVotes.map((vote) => vote.score));
        record.evaluation = { votes: evalVotes.map((vote) => recordVote(vote, false)), score: stepScore, valid: tally.valid, failed: tally.failed, counts: tally.counts };
      }
    }
    record.evalScore = stepScore;
    this.deps.ledger.noteJudged(turn, null);
    this.book.stepJudged({ turn, stepScore, unusable, carried: record });
  }

  /** A settled task group: one sample per trainable step (reward r_t, the standardised advantage), records, events. */
  private async storeGroup(group: SettledGroup<JudgementRecord>): Promise<void> {
    for (const step of group.steps) {
      const record = step.carried;
      record.episode = {
        id: step.turn.episode.id,
        groupId: group.groupId,
        stepIndex: step.stepIndex,
        stepScore: step.stepScore,
        ...(step.trainable ? { outcome: step.outcome, reward: step.reward, advantage: step.advantage, trained: step.trained } : { outcome: null, reward: null, advantage: null, trained: false }),
        ...(group.partial ? { partialGroup: group.partial } : {}),
      };
      const category = (record.gate?.category as SkipCategory | undefined) ?? "invalid-turn";
      await this.deps.settle(step.turn, record, step.trainable ? await this.storeStep(step) : { sample: null, skipped: step.reason, category });
    }
  }

  private async storeStep(step: Extract<SettledStep<JudgementRecord>, { trainable: true }>): Promise<JudgingOutcome> {
    const score = (value: number | null) => (value === null ? "none" : value.toFixed(3));
    const why = `episode step ${step.stepIndex}: outcome ${score(step.outcome)} + ${this.deps.recipe.episodes.prm_step_coef}·step score ${score(step.stepScore)} = ${score(step.reward)}, advantage ${score(step.advantage)}${step.trained ? "" : " (constant bucket: masked)"}`;
    const built = buildSample({
      turn: step.turn,
      decision: { make: true, kind: "rl", reward: step.reward, teacher: "none", masked: !step.trained, promoted: false, why },
      teacher: null,
      evalScore: step.stepScore,
      now: Date.now(),
    });
    if (!built.ok) return { sample: null, skipped: built.reason, category: "invalid-turn" };
    const sample = built.sample;
    sample.advantage = step.advantage;
    sample.episode = { episodeId: step.turn.episode.id, groupId: step.turn.episode.groupId, stepIndex: step.stepIndex, stepScore: step.stepScore, outcome: step.outcome };
    return storeSample(this.deps.sink, sample, this.deps.reportError);
  }
}
