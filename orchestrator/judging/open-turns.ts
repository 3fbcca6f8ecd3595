// Main turns that ended but are not closed yet, kept on the proxy's thread: judging needs them only to answer feedback
// for a turn before it closes, so they cross to the judging thread only with a feedback request (or when too many
// are kept); a closed turn tells judging all it needs itself. Ignores side turns and what judging does with them.
import type { RunEvent } from "../../contracts/events.ts";

/** A main turn's response ended: complete (the turn is open until its next state closes it), or aborted (never closed). */
export interface TurnEnded {
  sessionId: string;
  turn: number;
  aborted: boolean;
}

/** The notice a main turn-end event gives judging, else null. */
export function turnEndedNotice(event: RunEvent): TurnEnded | null {
  if (event.type !== "turn-end" || event.turnType !== "main") return null;
  return { sessionId: event.sessionId, turn: event.turn, aborted: event.finishReason === "abort" };
}

export class OpenTurns {
  private readonly ended = new Map<string, TurnEnded>();

  /** `limit`: notices kept at most; beyond it the oldest is handed on at once (see noteEnded). */
  constructor(private readonly limit: number) {}

  /** Keeps the notice; returns the oldest one pushed out beyond the limit (to hand on now), else null. */
  noteEnded(notice: TurnEnded): TurnEnded | null {
    const key = `${notice.sessionId}\u0000${notice.turn}`;
    this.ended.delete(key);
    this.ended.set(key, notice);
    if (this.ended.size <= this.limit) return null;
    const [oldestKey, oldest] = this.ended.entries().next().value as [string, TurnEnded];
    this.ended.delete(oldestKey);
    return oldest;
  }

  /** The turn closed: judging hears of it from the closed turn. */
  closed(sessionId: string, turn: number): void {
    this.ended.delete(`${sessionId}\u0000${turn}`);
  }

  /** Every notice kept, oldest first, handed on (a feedback request is about to be answered). */
  take(): TurnEnded[] {
    const notices = [...this.ended.values()];
    this.ended.clear();
    return notices;
  }
}
