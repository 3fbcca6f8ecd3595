// How far episodes may run ahead of the trainer: a new task group starts only when the samples already ahead (ready
// in the store, made by finished episodes and not yet judged, expected of running episodes) plus the group's own fit
// in the staleness rule's window (staleness-policy.ts). Counts only; starts nothing itself.
import type { StalenessPolicy } from "../weights/staleness-policy.ts";

export interface RolloutBudgetOptions {
  /** The run's staleness rule (the store's): its window sizes the budget. */
  staleness: StalenessPolicy;
  /** training.batch_size. */
  batchSize: number;
  /** Samples ready in the store now (not handed out). */
  ready: () => number;
  /** Steps still unjudged this long after the last judgement came are taken as lost (default 120 s). */
  lostAfterMs?: number;
  now?: () => number;
}

/** What the episode driver knows when it asks: its running episodes' and the next group's expected samples. */
export interface AdmissionQuestion {
  running: number;
  runningSamples: number;
  groupSamples: number;
}

export class RolloutBudget {
  /** Steps of finished episodes whose judgement has not come yet (they become samples when their group settles). */
  private readonly unjudged = new Map<string, number>();
  private lastJudgedAt = 0;
  private readonly now: () => number;

  constructor(private readonly options: RolloutBudgetOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Samples that can wait in line and still be trained before the staleness rule drops them. */
  get window(): number {
    return this.options.staleness.window(this.options.batchSize);
  }

  /** An episode reported its outcome: its steps will become samples (or be judged untrainable). */
  episodeEnded(episodeId: string, steps: number): void {
    if (steps > 0) this.unjudged.set(episodeId, (this.unjudged.get(episodeId) ?? 0) + steps);
    this.lastJudgedAt = this.now();
  }

  /** One step of an episode was judged and settled (its sample stored, or why none). */
  stepJudged(episodeId: string): void {
    const left = this.unjudged.get(episodeId);
    if (left === undefined) return;
    this.lastJudgedAt = this.now();
    if (left <= 1) this.unjudged.delete(episodeId);
    else this.unjudged.set(episodeId, left - 1);
  }

  /** Samples ahead of a group started now, besides the running episodes': in the store and being judged. */
  waiting(): number {
    let pending = 0;
    for (const steps of this.unjudged.values()) pending += steps;
    return this.options.ready() + pending;
  }

  /**
   * Whether the next task group may start: when its samples fit in the window behind those ahead; and always when
   * nothing of ours runs or waits to be judged and the store cannot make a batch, so the trainer never idles for it
   * (a group larger than the window then runs alone). Steps unjudged lostAfterMs after the last judgement (an
   * episode whose steps never all close) stop counting for that rule.
   */
  mayStartGroup(question: AdmissionQuestion): boolean {
    const judgingDone = this.unjudged.size === 0 || this.now() - this.lastJudgedAt > (this.options.lostAfterMs ?? 120_000);
    if (question.running === 0 && judgingDone && this.options.ready() < this.options.batchSize) return true;
    return this.waiting() + question.runningSamples + question.groupSamples <= this.window;
  }
}
