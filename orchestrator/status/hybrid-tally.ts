// method hybrid's own numbers for status: the share of judged turns in each dispatch case and the candidates per
// sample (from turn-judged), and the trainer's selection numbers at its last step (trainer-metrics). Nothing else.
import type { RunEvent } from "../../contracts/events.ts";

export const HYBRID_CASES = ["hint-and-evaluation", "hint-only", "evaluation-only", "neither"] as const;
export type HybridCaseName = (typeof HYBRID_CASES)[number];

/** The trainer's metric names (hybrid_loss_function, docs/native.md): k* chosen, overlap at k*, |S_t|. */
const TRAINER_KEYS = { kStar: "sel_k_star_mean", overlapAtKStar: "sel_overlap_at_k_star", subsetSize: "opd_subset_size" } as const;

export interface HybridCounts {
  /** Judged turns per dispatch case. */
  cases: Record<HybridCaseName, number>;
  /** Samples made and their candidates in all (candidates per turn = candidates / samples). */
  samples: number;
  candidates: number;
  /** The last step that reported them; null before one. */
  trainer: { kStar: number | null; overlapAtKStar: number | null; subsetSize: number | null } | null;
}

export class HybridTally {
  private readonly cases = Object.fromEntries(HYBRID_CASES.map((name) => [name, 0])) as Record<HybridCaseName, number>;
  private samples = 0;
  private candidates = 0;
  private trainer: HybridCounts["trainer"] = null;
  private seen = false;

  apply(event: RunEvent): void {
    if (event.type === "turn-judged" && event.hybrid) {
      this.seen = true;
      this.cases[event.hybrid.case] += 1;
      if (event.hybrid.candidates > 0) {
        this.samples += 1;
        this.candidates += event.hybrid.candidates;
      }
    } else if (event.type === "trainer-metrics" && TRAINER_KEYS.kStar in event.metrics) {
      this.seen = true;
      const pick = (key: string): number | null => event.metrics[key] ?? null;
      this.trainer = { kStar: pick(TRAINER_KEYS.kStar), overlapAtKStar: pick(TRAINER_KEYS.overlapAtKStar), subsetSize: pick(TRAINER_KEYS.subsetSize) };
    }
  }

  /** null when the run showed nothing of a hybrid. */
  counts(): HybridCounts | null {
    return this.seen ? { cases: { ...this.cases }, samples: this.samples, candidates: this.candidates, trainer: this.trainer && { ...this.trainer } } : null;
  }
}
