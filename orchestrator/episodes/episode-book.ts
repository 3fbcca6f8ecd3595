// The episodes of a run as judging sees them: each step's judged turn is held until its episode's outcome is known
// and every step closed before the outcome has been judged; a finished episode joins its task group, and a group of
// episodes.samples_per_task finished episodes (or one older than episodes.group_timeout_s, or any at drain) is
// handed on with each step's reward and advantage (step-rewards.ts). Lives in the judging thread; no I/O.
import type { ClosedTurn } from "../../contracts/turn.ts";
import { outcomeOf, stepAdvantages, type EpisodeStep } from "./step-rewards.ts";

/** A closed step after judging: its step score, or why it can make no sample. */
export interface JudgedStep<R> {
  turn: ClosedTurn & { episode: NonNullable<ClosedTurn["episode"]> };
  /** Mean of the judge's valid votes, null where there is none (no next state, every vote failed). */
  stepScore: number | null;
  /** Why this step can never be trained (aborted, empty, stale …), else null. */
  unusable: string | null;
  /** Whatever the caller keeps with the step until the group is handed on (its judgement record). */
  carried: R;
}

/** How an episode ended, as reported (POST /v1/episodes/{id}/outcome, or the episode driver). */
export interface EpisodeEnd {
  episodeId: string;
  groupId: string;
  /** The environment's score in [0, 1]; null for an episode that failed (its evaluation did not happen). */
  score: number | null;
  /** Why it failed, when it did. */
  failure: string | null;
  /** Its steps that completed (each is closed and judged once): the outcome may arrive before the last is closed. */
  steps: number;
}

/** A step handed on: trained (with its reward and advantage) or not (with the reason). */
export type SettledStep<R> = JudgedStep<R> &
  ({ trainable: true; stepIndex: number; outcome: number; reward: number; advantage: number; trained: boolean } | { trainable: false; stepIndex: number; reason: string });

export interface SettledGroup<R> {
  groupId: string;
  episodes: number;
  /** Why the group was handed on before samples_per_task episodes finished, else null. */
  partial: string | null;
  steps: SettledStep<R>[];
}

export interface EpisodeBookOptions<R> {
  samplesPerTask: number;
  prmStepCoef: number;
  groupTimeoutMs: number;
  onGroup(group: SettledGroup<R>): void;
  now?: () => number;
}

interface Episode<R> {
  groupId: string;
  /** When a step of it was last closed or judged, or its outcome came. */
  lastAt: number;
  /** Steps closed so far (each is judged once). */
  closed: number;
  judged: JudgedStep<R>[];
  end: EpisodeEnd | null;
}

interface Group<R> {
  firstAt: number;
  finished: { end: EpisodeEnd; steps: JudgedStep<R>[] }[];
}

export class EpisodeBook<R> {
  private readonly episodes = new Map<string, Episode<R>>();
  private readonly groups = new Map<string, Group<R>>();
  private readonly now: () => number;

  constructor(private readonly options: EpisodeBookOptions<R>) {
    this.now = options.now ?? Date.now;
  }

  /** Episodes with steps or an outcome held, and finished episodes waiting for their group. */
  get held(): { episodes: number; groups: number } {
    return { episodes: this.episodes.size, groups: this.groups.size };
  }

  /** A step of the episode was closed and goes to judging. */
  stepClosed(turn: ClosedTurn & { episode: NonNullable<ClosedTurn["episode"]> }): void {
    this.episode(turn.episode.id, turn.episode.groupId).closed += 1;
  }

  /**
   * Episodes untouched for longer than groupTimeoutMs (no step, no outcome: a harness that never reported one) are
   * handed on untrainable, so what they hold is not kept for ever.
   */
  private sweepEpisodes(): void {
    const deadline = this.now() - this.options.groupTimeoutMs;
    for (const [episodeId, episode] of [...this.episodes]) {
      if (episode.lastAt > deadline) continue;
      this.drop(episodeId, episode, episode.end ? "not every step of the episode was judged within episodes.group_timeout_s" : "the episode reported no outcome within episodes.group_timeout_s");
    }
  }

  /** Forgets an episode; its judged steps are handed on untrainable, with the reason. */
  private drop(episodeId: string, episode: Episode<R>, reason: string): void {
    this.episodes.delete(episodeId);
    if (episode.judged.length === 0) return;
    this.options.onGroup({ groupId: episode.groupId, episodes: 1, partial: reason, steps: ordered(episode.judged).map((step, stepIndex) => ({ ...step, trainable: false as const, stepIndex, reason })) });
  }

  stepJudged(step: JudgedStep<R>): void {
    const episode = this.episode(step.turn.episode.id, step.turn.episode.groupId);
    episode.judged.push(step);
    this.settleIfDone(step.turn.episode.id, episode);
  }

  /** The episode's outcome (after its last step was closed). A second report of the same episode is ignored. */
  ended(end: EpisodeEnd): void {
    const episode = this.episode(end.episodeId, end.groupId);
    if (episode.end) return;
    episode.end = end;
    this.settleIfDone(end.episodeId, episode);
  }

  /** Hands on groups whose first episode finished more than groupTimeoutMs ago (returns how many), and drops stale episodes. */
  sweep(): number {
    this.sweepEpisodes();
    const deadline = this.now() - this.options.groupTimeoutMs;
    let count = 0;
    for (const [groupId, group] of [...this.groups]) {
      if (group.firstAt > deadline) continue;
      this.settleGroup(groupId, group, `the group waited longer than episodes.group_timeout_s for ${this.options.samplesPerTask} episodes`);
      count++;
    }
    return count;
  }

  /**
   * At drain: every group with a finished episode is handed on as it is; the steps of episodes that never reported
   * an outcome are handed on untrainable, in groups of their own.
   */
  flush(): void {
    for (const [groupId, group] of [...this.groups]) this.settleGroup(groupId, group, "the run stopped before the group was complete");
    for (const [episodeId, episode] of [...this.episodes]) {
      this.drop(episodeId, episode, episode.end ? "the run stopped before every step of the episode was judged" : "the episode never reported an outcome");
    }
  }

  private episode(id: string, groupId: string): Episode<R> {
    let episode = this.episodes.get(id);
    if (!episode) this.episodes.set(id, (episode = { groupId, lastAt: 0, closed: 0, judged: [], end: null }));
    episode.lastAt = this.now();
    return episode;
  }

  private settleIfDone(id: string, episode: Episode<R>): void {
    if (!episode.end || episode.closed < episode.end.steps || episode.judged.length < episode.closed) return;
    this.episodes.delete(id);
    let group = this.groups.get(episode.groupId);
    if (!group) this.groups.set(episode.groupId, (group = { firstAt: this.now(), finished: [] }));
    group.finished.push({ end: episode.end, steps: ordered(episode.judged) });
    if (group.finished.length >= this.options.samplesPerTask) this.settleGroup(episode.groupId, group, null);
  }

  private settleGroup(groupId: string, group: Group<R>, partial: string | null): void {
    this.groups.delete(groupId);
    const scored: { step: JudgedStep<R>; stepIndex: number; rewardStep: EpisodeStep }[] = [];
    const settled: SettledStep<R>[] = [];
    for (const { end, steps } of group.finished) {
      steps.forEach((step, stepIndex) => {
        const reason = end.score === null ? `the episode failed: ${end.failure ?? "no score"}` : step.unusable;
        if (reason !== null) return void settled.push({ ...step, trainable: false, stepIndex, reason });
        const rewardStep = { groupId, episodeId: end.episodeId, stepIndex, stepScore: step.stepScore, outcome: outcomeOf(end.score!) };
        scored.push({ step, stepIndex, rewardStep });
      });
    }
    const advantages = stepAdvantages(
      scored.map((entry) => entry.rewardStep),
      this.options.prmStepCoef,
    );
    scored.forEach(({ step, stepIndex }, index) => {
      const { outcome, reward, advantage, trained } = advantages[index]!;
      settled.push({ ...step, trainable: true, stepIndex, outcome, reward, advantage, trained });
    });
    this.options.onGroup({ groupId, episodes: group.finished.length, partial, steps: settled });
  }
}

/** An episode's steps in the order they were taken (turn numbers grow within a session). */
function ordered<R>(steps: JudgedStep<R>[]): JudgedStep<R>[] {
  return [...steps].sort((a, b) => a.turn.turn - b.turn.turn);
}
