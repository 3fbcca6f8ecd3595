// Which ready samples make the next batch: oldest first, no session holding more than its share, so one chatty or
// looping session cannot fill a batch. Pure; knows nothing of files or HTTP, nor how staleness is measured (the store
// marks the samples this batch is the last chance for).

export interface BatchCandidate {
  seq: number;
  sessionId: string;
  /** When the sample became ready (ms epoch). */
  readyAt: number;
  /** One more weight version and the staleness rule drops it: it goes in this batch whatever its session's share. */
  lastChance?: boolean;
}

export interface FairBatchRule {
  /** The most of a batch one session may hold, as a share of its size (training.fair_batch.max_session_share). */
  maxSessionShare: number;
  /**
   * When a full batch cannot be made within the share and a held-back sample has waited this long, the batch is
   * completed with held-back samples, oldest first (a run with too few sessions still trains).
   */
  relaxAfterMs: number;
}

export interface BatchComposition {
  seqs: number[];
  /** Samples passed over because their session was at its cap (older than the batch's newest): they wait for a later batch. */
  heldBack: number;
  /** Completed with held-back samples after relaxAfterMs. */
  relaxed: boolean;
  /** Distinct sessions in the batch, and the largest number of samples one of them holds. */
  sessions: number;
  largestSession: number;
}

/** Samples one session may hold in a batch of `size`: at least 1. */
export function sessionCap(size: number, share: number): number {
  return Math.max(1, Math.floor(size * share));
}

/**
 * The batch of `size` from `candidates` (in seq order), or null when none can be made now. Skipped samples keep
 * their order and stay candidates: nothing is dropped here.
 */
export function composeBatch(candidates: readonly BatchCandidate[], size: number, rule: FairBatchRule, now: number): BatchComposition | null {
  if (candidates.length < size) return null;
  const cap = sessionCap(size, rule.maxSessionShare);
  const perSession = new Map<string, number>();
  const picked: BatchCandidate[] = [];
  const skipped: BatchCandidate[] = [];
  // held back by the share, a sample must not then be lost to the staleness rule: its last chance comes first
  const lastChance = candidates.filter((candidate) => candidate.lastChance).slice(0, size);
  for (const candidate of lastChance) {
    perSession.set(candidate.sessionId, (perSession.get(candidate.sessionId) ?? 0) + 1);
    picked.push(candidate);
  }
  for (const candidate of candidates) {
    if (picked.length === size) break;
    if (candidate.lastChance) continue;
    const held = perSession.get(candidate.sessionId) ?? 0;
    if (held >= cap) {
      skipped.push(candidate);
      continue;
    }
    perSession.set(candidate.sessionId, held + 1);
    picked.push(candidate);
  }
  const missing = size - picked.length;
  if (missing > 0) {
    const oldestWait = skipped.reduce((oldest, candidate) => Math.max(oldest, now - candidate.readyAt), 0);
    if (oldestWait < rule.relaxAfterMs) return null;
    for (const candidate of skipped.slice(0, missing)) {
      perSession.set(candidate.sessionId, (perSession.get(candidate.sessionId) ?? 0) + 1);
      picked.push(candidate);
    }
  }
  return {
    seqs: picked.map((candidate) => candidate.seq).sort((a, b) => a - b),
    heldBack: skipped.length - Math.max(0, missing),
    relaxed: missing > 0,
    sessions: perSession.size,
    largestSession: Math.max(...perSession.values()),
  };
}
