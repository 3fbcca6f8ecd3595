// Judges the steps of general-agent episodes: a step's score from the judge's votes on its next state (a
// StepJudgement, held in the episode book by the pipeline), and, once its task group is settled, the step's sample
// and record parts. Writes nothing shared; ignores chat turns, and which steps are judged when (judge-pipeline.ts).
import type { SkipCategory } from "../../contracts/events.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import type { SettledGroup, SettledStep } from "../episodes/episode-book.ts";
import { stepScoreOf } from "../episodes/step-rewards.ts";
import type { JudgementRecord } from "../records/judgement-records.ts";
import { buildSample } from "../samples/sample-builder.ts";
import { recordVote, type EvaluationNote, type GateNote, type NotJudged, type Verdict } from "./judgement.ts";
import type { TurnVoter } from "./turn-voter.ts";
import { tallyEvalVotes } from "./vote-tally.ts";

export type EpisodeStep = ClosedTurn & { episode: NonNullable<ClosedTurn["episode"]> };

/** A judged step, held until its group settles: its score (mean of the judge's valid votes) and its record parts. */
export interface StepJudgement {
  stepScore: number | null;
  /** Why the step can never be trained (unusable, gated, stale: the pipeline did not judge it), else null. */
  unusable: string | null;
  attempt: number;
  evaluation: EvaluationNote | null;
  gate: GateNote | null;
}

/** A step's score from the judge's votes on its next state (none without one), or why it was not judged. */
export async function judgeStep(turn: EpisodeStep, notJudged: NotJudged | null, voter: TurnVoter): Promise<StepJudgement> {
  const judgement: StepJudgement = { stepScore: null, unusable: notJudged?.skipped ?? null, attempt: 1, evaluation: null, gate: notJudged?.gate ?? null };
  if (judgement.unusable === null && turn.nextState !== null) {
    const { evalVotes, attempts } = await voter.collect(turn, true, false);
    judgement.attempt = attempts;
    if (evalVotes) {
      const tally = tallyEvalVotes(evalVotes);
      judgement.stepScore = stepScoreOf(evalVotes.map((vote) => vote.score));
      judgement.evaluation = { votes: evalVotes.map((vote) => recordVote(vote, false)), score: judgement.stepScore, valid: tally.valid, failed: tally.failed, counts: tally.counts };
    }
  }
  return judgement;
}

/** What the record says of a step of a settled group: its reward and advantage, or why it was not trained. */
export function stepRecordPart(step: SettledStep<StepJudgement>, group: SettledGroup<StepJudgement>): NonNullable<JudgementRecord["episode"]> {
  return {
    id: step.turn.episode.id,
    groupId: group.groupId,
    stepIndex: step.stepIndex,
    stepScore: step.stepScore,
    ...(step.trainable ? { outcome: step.outcome, reward: step.reward, advantage: step.advantage, trained: step.trained } : { outcome: null, reward: null, advantage: null, trained: false }),
    ...(group.partial ? { partialGroup: group.partial } : {}),
  };
}

/** A settled step's sample (reward r_t, the standardised advantage), or why it makes none. */
export function stepVerdict(step: SettledStep<StepJudgement>, prmStepCoef: number): Verdict {
  if (!step.trainable) return { sample: null, skipped: step.reason, category: (step.carried.gate?.category as SkipCategory | undefined) ?? "invalid-turn" };
  const score = (value: number | null) => (value === null ? "none" : value.toFixed(3));
  const why = `episode step ${step.stepIndex}: outcome ${score(step.outcome)} + ${prmStepCoef}·step score ${score(step.stepScore)} = ${score(step.reward)}, advantage ${score(step.advantage)}${step.trained ? "" : " (constant bucket: masked)"}`;
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
  return { sample, skipped: null, category: null };
}
