// Sessions in memory: each one's open main turn (awaiting its next state), the digest of its known history,
// LRU order with a max size, and idle closing by one periodic sweep. Ignores HTTP and generation.
import type { ChatMessage } from "../../contracts/chat.ts";
import type { CapturedTurn, ClosedTurn, NextState } from "../../contracts/turn.ts";
import { digestMessage, prefixDigests, type MessageDigests } from "./message-digest.ts";
import { extractNextState } from "./next-state.ts";
import { TurnNumbers } from "../records/turn-numbers.ts";
import type { SessionView } from "./turn-decision.ts";

interface OpenTurn {
  captured: CapturedTurn;
  stableLength: number; // messages of the turn's request history (without ephemeral blocks)
}

interface Session {
  id: string;
  lastSeenAt: number;
  mainTurns: number;
  sideTurns: number;
  usesTools: boolean;
  openTurn: OpenTurn | null;
  /** Digests of its histories so far (each completed turn's history + reply), most recent last, HISTORIES_KEPT at most. */
  histories: string[];
}

/**
 * Histories of a session it is found by, not only its latest: a retried request, or one whose last user message was
 * edited, extends an earlier history of the session (without session headers or a marker, the only way to know it).
 */
const HISTORIES_KEPT = 16;

export interface SessionTrackerOptions {
  maxSessions: number;
  idleTimeoutMs: number;
  onTurnClosed(turn: ClosedTurn): void;
  now?: () => number;
  /** Cached digests (the proxy's own), so a completed turn's history is not hashed again. */
  digests?: MessageDigests;
}

export class SessionTracker implements SessionView {
  private readonly sessions = new Map<string, Session>(); // least recently used first
  private readonly byHistory = new Map<string, string>(); // history digest → session id
  /** Turn numbers of sessions no longer in memory: a session id seen again goes on from there. */
  private readonly retired: TurnNumbers;
  private readonly now: () => number;
  private sweepTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: SessionTrackerOptions) {
    this.now = options.now ?? Date.now;
    this.retired = new TurnNumbers(4 * options.maxSessions);
  }

  /**
   * The next main turn of sessions known from before (an earlier run's turns.jsonl), most recent last: a session
   * that goes on numbers its turns from there, so (session, turn) is never used twice.
   */
  knowTurns(nextTurns: Iterable<[string, number]>): void {
    for (const [sessionId, next] of nextTurns) {
      this.retired.note(sessionId, next);
      const session = this.sessions.get(sessionId);
      if (session && session.mainTurns < next) session.mainTurns = next;
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  exists(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  usesTools(sessionId: string): boolean {
    return this.sessions.get(sessionId)?.usesTools ?? false;
  }

  longestHistory(digests: readonly string[]): { sessionId: string; matched: number } | null {
    for (let index = digests.length - 1; index >= 0; index--) {
      const sessionId = this.byHistory.get(digests[index]!);
      if (sessionId !== undefined && this.sessions.has(sessionId)) return { sessionId, matched: index + 1 };
    }
    return null;
  }

  /**
   * A request of this session starts: for a main turn, closes the previous open turn with the messages
   * that follow its assistant message here. Returns the new turn's index (main or side counter).
   */
  begin(sessionId: string, turnType: "main" | "side", messages: readonly ChatMessage[]): number {
    if (turnType === "side") {
      // a side request keeps a known session alive but never creates one (recaps would flood the table)
      return this.sessions.has(sessionId) ? this.touch(sessionId).sideTurns++ : 0;
    }
    const session = this.touch(sessionId);
    const open = session.openTurn;
    if (open) {
      const match = extractNextState(messages, open.captured.response, open.stableLength);
      if (!match.found) this.close(session, null, "next-request"); // history diverged (edited, compacted)
      else if (match.nextState) this.close(session, match.nextState, "next-request");
      // found but nothing follows yet (a retry of the same request): keep it open
    }
    return session.mainTurns++;
  }

  /**
   * A main turn finished generating: it becomes the session's open turn, and the session is found again by its
   * history + this response.
   * `historyPrefix` (the last prefix digest of the stable history, as the request's turn decision computed it)
   * saves chaining the whole history again.
   */
  complete(captured: CapturedTurn, stableHistory: readonly ChatMessage[], historyDigests?: readonly string[], historyPrefix?: string): void {
    const session = this.touch(captured.sessionId);
    if (session.openTurn) this.close(session, null, "next-request"); // a concurrent turn superseded it
    session.openTurn = { captured, stableLength: stableHistory.length };
    session.usesTools ||= (captured.tools?.length ?? 0) > 0;
    const cache = this.options.digests;
    const digestOf = cache ? (message: Parameters<typeof digestMessage>[0]) => cache.of(message) : digestMessage;
    const chain = (digests: readonly string[], from?: string) => (cache ? cache.prefixes(digests, from) : prefixDigests(digests, from));
    const from = historyPrefix ?? chain(historyDigests ?? stableHistory.map(digestOf)).at(-1) ?? "";
    const digest = chain([digestOf(captured.response)], from)[0]!;
    session.histories.push(digest);
    this.byHistory.set(digest, session.id);
    while (session.histories.length > HISTORIES_KEPT) this.unindex(session, session.histories.shift()!);
  }

  /**
   * X-Session-Done (or an episode's outcome): closes the last turn and forgets the session. Its next state is what
   * follows its answer in `messages` (a history given with the end), else none.
   */
  endSession(sessionId: string, messages?: readonly ChatMessage[]): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const open = session.openTurn;
    const match = open && messages ? extractNextState(messages, open.captured.response, open.stableLength) : null;
    this.close(session, match?.found ? (match.nextState ?? null) : null, "session-done");
    this.forget(session);
  }

  /** Closes sessions idle for longer than the timeout; the map is in LRU order, so it stops at the first fresh one. */
  sweep(): number {
    const deadline = this.now() - this.options.idleTimeoutMs;
    let closed = 0;
    for (const session of this.sessions.values()) {
      if (session.lastSeenAt > deadline) break;
      this.close(session, null, "idle-timeout");
      this.forget(session);
      closed++;
    }
    return closed;
  }

  startSweeping(intervalMs = Math.max(1000, Math.min(30_000, this.options.idleTimeoutMs / 4))): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setInterval(() => this.sweep(), intervalMs);
    this.sweepTimer.unref();
  }

  stopSweeping(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
  }

  closeAll(reason: "shutdown"): void {
    for (const session of [...this.sessions.values()]) {
      this.close(session, null, reason);
      this.forget(session);
    }
  }

  private touch(sessionId: string): Session {
    let session = this.sessions.get(sessionId);
    if (session) this.sessions.delete(sessionId);
    else session = { id: sessionId, lastSeenAt: 0, mainTurns: this.retired.nextTurn(sessionId), sideTurns: 0, usesTools: false, openTurn: null, histories: [] };
    session.lastSeenAt = this.now();
    this.sessions.set(sessionId, session);
    while (this.sessions.size > this.options.maxSessions) {
      const oldest = this.sessions.values().next().value as Session;
      this.close(oldest, null, "evicted");
      this.forget(oldest);
    }
    return session;
  }

  private forget(session: Session): void {
    this.sessions.delete(session.id);
    this.retired.note(session.id, session.mainTurns);
    for (const digest of session.histories) this.unindex(session, digest);
  }

  /** Drops a history digest of the session from the index, unless another session has claimed it since. */
  private unindex(session: Session, digest: string): void {
    if (this.byHistory.get(digest) === session.id) this.byHistory.delete(digest);
  }

  private close(session: Session, nextState: NextState | null, closedBy: ClosedTurn["closedBy"]): void {
    const open = session.openTurn;
    if (!open) return;
    session.openTurn = null;
    this.options.onTurnClosed({ ...open.captured, nextState, closedBy, closedAt: this.now() });
  }
}
