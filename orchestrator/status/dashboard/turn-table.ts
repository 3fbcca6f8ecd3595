// The recent-turns table: the newest `limit` turn rows, found by (type, session, turn), paged newest first
// by a stable `before` cursor, with the set of rows changed since the last delta. Holds no conversation text.
import type { TurnPage, TurnRow } from "./dashboard-wire.ts";

const maxVotesPerRow = 32;

function rowKey(turnType: "main" | "side", sessionId: string, turn: number): string {
  return `${turnType}\u0000${sessionId}\u0000${turn}`;
}

export class TurnTable {
  private rows: TurnRow[] = []; // ascending seq
  private readonly byKey = new Map<string, TurnRow>();
  private readonly changed = new Set<TurnRow>();
  private nextSeq = 1;

  constructor(readonly limit: number) {}

  get size(): number {
    return this.byKey.size;
  }

  find(sessionId: string, turn: number, turnType: "main" | "side" = "main"): TurnRow | undefined {
    return this.byKey.get(rowKey(turnType, sessionId, turn));
  }

  /** The row of this turn, created (as the newest) when the table has none. */
  upsert(sessionId: string, turn: number, turnType: "main" | "side", at: number): TurnRow {
    const key = rowKey(turnType, sessionId, turn);
    const existing = this.byKey.get(key);
    if (existing) {
      this.changed.add(existing);
      return existing;
    }
    const row: TurnRow = {
      seq: this.nextSeq++,
      sessionId,
      turn,
      turnType,
      startedAt: at,
      decidedBy: "",
      status: turnType === "side" ? "side" : "generating",
      finishReason: null,
      promptTokens: null,
      responseTokens: null,
      ttftMs: null,
      totalMs: null,
      closedBy: null,
      nextStateRole: null,
      method: null,
      score: null,
      hintAccepted: null,
      reward: null,
      kind: null,
      why: turnType === "side" ? "side turn: not trained" : null,
      votes: [],
    };
    this.rows.push(row);
    this.byKey.set(key, row);
    this.changed.add(row);
    this.evict();
    return row;
  }

  addVote(row: TurnRow, vote: TurnRow["votes"][number]): void {
    if (row.votes.length < maxVotesPerRow) row.votes.push(vote);
    this.changed.add(row);
  }

  /** Newest first; `before` is a seq cursor (rows with a smaller seq), null for the newest page. */
  page(before: number | null, limit: number): TurnPage {
    let end = this.rows.length; // exclusive index into ascending rows
    if (before !== null) end = lowerBound(this.rows, before);
    const startIndex = Math.max(0, end - limit);
    const rows = this.rows.slice(startIndex, end).reverse();
    const oldest = rows[rows.length - 1];
    return { rows, total: this.rows.length, before, next: startIndex > 0 && oldest ? oldest.seq : null };
  }

  /** Rows created or changed since the last call, newest first, at most `limit` (the newest win). */
  drainChanged(limit: number): TurnRow[] {
    const rows = [...this.changed].sort((a, b) => b.seq - a.seq).slice(0, limit);
    this.changed.clear();
    return rows;
  }

  private evict(): void {
    const excess = this.rows.length - this.limit;
    if (excess <= Math.ceil(this.limit / 8)) return;
    const removed = this.rows.splice(0, excess);
    for (const row of removed) {
      this.byKey.delete(rowKey(row.turnType, row.sessionId, row.turn));
      this.changed.delete(row);
    }
  }
}

/** First index whose seq is >= `seq` (rows ascend by seq). */
function lowerBound(rows: readonly TurnRow[], seq: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((rows[middle] as TurnRow).seq < seq) low = middle + 1;
    else high = middle;
  }
  return low;
}
