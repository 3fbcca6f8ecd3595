// The next main turn number of sessions not in memory (closed for idleness, evicted, ended, or known from the
// records of an earlier run), so that a session id seen again goes on numbering its turns: (session, turn) stays
// unique in turns.jsonl, in judging and in sample ids. Bounded: the least recently noted session goes first.

export class TurnCounters {
  private readonly next = new Map<string, number>(); // least recently noted first

  constructor(private readonly capacity: number) {}

  /** The number the session's next main turn gets: 0 for a session not known. */
  nextTurn(sessionId: string): number {
    return this.next.get(sessionId) ?? 0;
  }

  /** The session's main turns so far are numbered below `nextTurn` (a lower number than known is ignored). */
  note(sessionId: string, nextTurn: number): void {
    const known = this.next.get(sessionId);
    this.next.delete(sessionId);
    this.next.set(sessionId, Math.max(known ?? 0, nextTurn));
    if (this.next.size > this.capacity) this.next.delete(this.next.keys().next().value as string);
  }

  get size(): number {
    return this.next.size;
  }
}
