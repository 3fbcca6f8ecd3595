// What the pipeline remembers about sessions and their main turns: the latest turn (from turn-end events and
// closed turns), each turn's judging state, explicit feedback held for it, whether the session already has an
// effective sample, and the closed turns kept for re-judging. Bounded: LRU over sessions, turns and stored turns.
import type { ClosedTurn } from "../../contracts/turn.ts";
import type { ExplicitFeedback } from "./explicit-feedback.ts";

/** "aborted": the turn never completed (the client stopped it, or the engine aborted it); it is never closed or trained. */
export type TurnState = "open" | "judging" | "sample" | "no-sample" | "aborted";

export interface TurnEntry {
  state: TurnState;
  held: ExplicitFeedback | null;
  sampleId: string | null;
}

interface SessionEntry {
  latest: number;
  /** Samples with a non-zero loss mask made for the session (stored, or on their way to the sink). */
  effective: number;
  turns: Map<number, TurnEntry>;
}

const TURNS_PER_SESSION = 64;

/** What judging a turn may read of the ledger (its reads still refresh the session's place in the LRU). */
export type TurnLedgerView = Pick<TurnLedger, "entry" | "latestTurn" | "hasEffectiveSample">;

export class TurnLedger {
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly stored = new Map<string, ClosedTurn>();

  constructor(
    private readonly maxSessions: number,
    private readonly maxStoredTurns = 256,
  ) {}

  /** A main turn ended (its response is complete) but is not closed yet. */
  noteOpen(sessionId: string, turn: number): void {
    this.turnEntry(sessionId, turn);
  }

  /** A main turn ended without completing: it will never close, so feedback for it cannot wait for that. */
  noteAborted(sessionId: string, turn: number): void {
    this.turnEntry(sessionId, turn).state = "aborted";
  }

  /** The latest turn of the session before `turn` that did not abort, if one is remembered. */
  latestCompleteBefore(sessionId: string, turn: number): number | undefined {
    let found: number | undefined;
    for (const [number, entry] of this.touch(sessionId)?.turns ?? []) {
      if (number < turn && entry.state !== "aborted" && (found === undefined || number > found)) found = number;
    }
    return found;
  }

  noteJudging(turn: ClosedTurn): TurnEntry {
    const entry = this.turnEntry(turn.sessionId, turn.turn);
    entry.state = "judging";
    return entry;
  }

  noteJudged(turn: ClosedTurn, sampleId: string | null): void {
    const entry = this.turnEntry(turn.sessionId, turn.turn);
    entry.state = sampleId ? "sample" : "no-sample";
    entry.sampleId = sampleId;
    const key = `${turn.sessionId}\u0000${turn.turn}`;
    this.stored.delete(key);
    if (!sampleId) {
      this.stored.set(key, turn);
      if (this.stored.size > this.maxStoredTurns) this.stored.delete(this.stored.keys().next().value as string);
    }
  }

  /** The closed turn kept for re-judging (turns that made no sample), if still remembered. */
  storedTurn(sessionId: string, turn: number): ClosedTurn | undefined {
    return this.stored.get(`${sessionId}\u0000${turn}`);
  }

  entry(sessionId: string, turn: number): TurnEntry | undefined {
    return this.touch(sessionId)?.turns.get(turn);
  }

  latestTurn(sessionId: string): number | undefined {
    return this.touch(sessionId)?.latest;
  }

  hasEffectiveSample(sessionId: string): boolean {
    return (this.touch(sessionId)?.effective ?? 0) > 0;
  }

  /** Counted when the sample is decided (so a turn judged meanwhile sees it), taken back if it is not stored. */
  markEffective(sessionId: string): void {
    this.session(sessionId).effective += 1;
  }

  unmarkEffective(sessionId: string): void {
    const session = this.touch(sessionId);
    if (session && session.effective > 0) session.effective -= 1;
  }

  /** Merges explicit feedback into what is held for the turn (a later score or hint replaces an earlier one). */
  hold(sessionId: string, turn: number, feedback: ExplicitFeedback): void {
    const entry = this.turnEntry(sessionId, turn);
    entry.held = {
      score: feedback.score ?? entry.held?.score ?? null,
      hint: feedback.hint ?? entry.held?.hint ?? null,
      source: feedback.source,
    };
  }

  takeHeld(sessionId: string, turn: number): ExplicitFeedback | null {
    const entry = this.entry(sessionId, turn);
    if (!entry?.held) return null;
    const held = entry.held;
    entry.held = null;
    return held;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  private touch(sessionId: string): SessionEntry | undefined {
    const session = this.sessions.get(sessionId);
    if (session) {
      this.sessions.delete(sessionId);
      this.sessions.set(sessionId, session);
    }
    return session;
  }

  private session(sessionId: string): SessionEntry {
    let session = this.touch(sessionId);
    if (!session) {
      session = { latest: -1, effective: 0, turns: new Map() };
      this.sessions.set(sessionId, session);
      if (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string);
    }
    return session;
  }

  private turnEntry(sessionId: string, turn: number): TurnEntry {
    const session = this.session(sessionId);
    if (turn > session.latest) session.latest = turn;
    let entry = session.turns.get(turn);
    if (!entry) {
      entry = { state: "open", held: null, sampleId: null };
      session.turns.set(turn, entry);
      if (session.turns.size > TURNS_PER_SESSION) session.turns.delete(Math.min(...session.turns.keys()));
    }
    return entry;
  }
}
