// Which ready samples make the next batch: oldest first, no share unit holding more than its share, so one chatty or
// looping session cannot fill a batch. Pure; knows nothing of files or HTTP, nor how staleness is measured (the store
// marks the samples this batch is the last chance for).
//
// The share fits the number of active units: those with a sample ready now. With k of them a unit may hold the
// larger of max_session_share and 1/k of the batch, so one user alone trains batch after batch, two split it in
// halves, and from 1/max_session_share units on the configured share holds. A unit's recent turns do not make it
// active: a personal agent opens a new session per conversation, and ended ones would hold its one user back.
//
// The unit of the share is a chat sample's session, and an episode step's task group: the group's episodes are one
// task's samples_per_task rollouts, standardised together, so counting each episode as a session would make a batch
// wait for more episodes than a small run has. Held-back samples of a task group complete a short batch at once: a
// group's samples all arrive when it settles and the next groups start only as the trainer makes room for them
// (orchestrator/episodes/rollout-budget.ts), so waiting relax_after_s for another unit would only age them. A chat
// session's held-back samples wait that long, for other sessions to speak.

export interface BatchCandidate {
  seq: number;
  /** The share unit: the session, or the task group of an episode step (with `episodeGroup` set). */
  unit: string;
  /** The unit is an episode step's task group: its held-back samples complete a short batch without waiting. */
  episodeGroup?: boolean;
  /** When the sample became ready (ms epoch). */
  readyAt: number;
  /** One more weight version and the staleness rule drops it: it goes in this batch whatever its unit's share. */
  lastChance?: boolean;
}

export interface FairBatchRule {
  /** The most of a batch one unit may hold, as a share of its size, once enough units are active (training.fair_batch.max_session_share). */
  maxSessionShare: number;
  /**
   * When a full batch cannot be made within the share and a held-back chat sample has waited this long, the batch is
   * completed with held-back samples, oldest first (a run with too few sessions still trains).
   */
  relaxAfterMs: number;
}

export interface BatchComposition {
  seqs: number[];
  /** Samples passed over because their unit was at its cap (older than the batch's newest): they wait for a later batch. */
  heldBack: number;
  /** Completed with held-back samples (after relaxAfterMs, or at once for task groups). */
  relaxed: boolean;
  /** Distinct units (sessions, task groups) in the batch, and the largest number of samples one of them holds. */
  sessions: number;
  largestSession: number;
  /** Units with a sample ready when it was composed (the active ones), and the most one of them could hold. */
  activeSessions: number;
  perSession: number;
}

export type ShareUnit = Pick<BatchCandidate, "unit" | "episodeGroup">;

/** A sample's share unit: its task group when it is an episode's step, else its session. */
export function shareUnit(sample: { sessionId: string; episode?: { groupId: string } }): ShareUnit {
  return sample.episode ? { unit: `group:${sample.episode.groupId}`, episodeGroup: true } : { unit: `session:${sample.sessionId}` };
}

/** Samples one unit may hold in a batch of `size` while `active` units have samples ready: its share, or 1/active of the batch where that is more; at least 1. */
export function sessionCap(size: number, share: number, active = Number.POSITIVE_INFINITY): number {
  return Math.max(1, Math.floor(size * share), Math.ceil(size / Math.max(1, active)));
}

/** The active units of `candidates`: distinct units with a sample ready. */
export function activeUnits(candidates: readonly Pick<BatchCandidate, "unit">[]): number {
  return new Set(candidates.map((candidate) => candidate.unit)).size;
}

/**
 * The batch of `size` from `candidates` (in seq order), or null when none can be made now. Skipped samples keep
 * their order and stay candidates: nothing is dropped here.
 */
export function composeBatch(candidates: readonly BatchCandidate[], size: number, rule: FairBatchRule, now: number): BatchComposition | null {
  if (candidates.length < size) return null;
  const activeSessions = activeUnits(candidates);
  const cap = sessionCap(size, rule.maxSessionShare, activeSessions);
  const perUnit = new Map<string, number>();
  const picked: BatchCandidate[] = [];
  const skipped: BatchCandidate[] = [];
  const take = (candidate: BatchCandidate) => {
    perUnit.set(candidate.unit, (perUnit.get(candidate.unit) ?? 0) + 1);
    picked.push(candidate);
  };
  // held back by the share, a sample must not then be lost to the staleness rule: its last chance comes first
  for (const candidate of candidates.filter((each) => each.lastChance).slice(0, size)) take(candidate);
  for (const candidate of candidates) {
    if (picked.length === size) break;
    if (candidate.lastChance) continue;
    if ((perUnit.get(candidate.unit) ?? 0) >= cap) skipped.push(candidate);
    else take(candidate);
  }
  const missing = size - picked.length;
  if (missing > 0) {
    const waited = (candidate: BatchCandidate) => candidate.episodeGroup === true || now - candidate.readyAt >= rule.relaxAfterMs;
    if (!skipped.some(waited)) return null;
    for (const candidate of skipped.slice(0, missing)) take(candidate);
  }
  return {
    seqs: picked.map((candidate) => candidate.seq).sort((a, b) => a - b),
    heldBack: skipped.length - Math.max(0, missing),
    relaxed: missing > 0,
    sessions: perUnit.size,
    largestSession: Math.max(...perUnit.values()),
    activeSessions,
    perSession: cap,
  };
}
