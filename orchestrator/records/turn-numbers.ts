// The next main turn number of sessions not in memory (closed for idleness, evicted, ended, or known from an earlier
// run's turns.jsonl, read back here), so that a session id seen again goes on numbering its turns: (session, turn)
// stays unique in turns.jsonl, in judging and in sample ids. Ignores the sessions in memory (session-tracker.ts).
import { createReadStream } from "node:fs";

/** Session id → next main turn, least recently noted first; bounded: past `capacity` the least recently noted goes. */
export class TurnNumbers implements Iterable<[string, number]> {
  private readonly next = new Map<string, number>();

  constructor(private readonly capacity = Infinity) {}

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

  [Symbol.iterator](): Iterator<[string, number]> {
    return this.next.entries();
  }
}

const HEAD = /^\{"version":\d+,"session_id":("(?:[^"\\]|\\.)*"),"turn":(\d+)[,}]/;
/** Enough of a line's start for the head (session ids are short); the rest of a line is only searched for its end. */
const HEAD_BYTES = 4096;

/**
 * Reads back an existing turns.jsonl: each session's next main turn (its highest turn + 1), the sessions in the order
 * they last appear (most recent last); none when the file is missing. Reads only each line's opening, where every
 * record writes `{"version":…,"session_id":…,"turn":…`; a line of another shape is skipped.
 */
export async function readTurnNumbers(file: string): Promise<TurnNumbers> {
  const next = new TurnNumbers();
  const note = (head: string): void => {
    const match = HEAD.exec(head);
    if (match) next.note(JSON.parse(match[1]!) as string, Number(match[2]) + 1);
  };
  let head: Buffer[] = []; // the start of the current line, up to HEAD_BYTES bytes (decoded once it ends)
  let headBytes = 0;
  const take = (chunk: Buffer, from: number, stop: number): void => {
    if (headBytes >= HEAD_BYTES) return;
    const part = chunk.subarray(from, Math.min(stop, from + HEAD_BYTES - headBytes));
    head.push(part);
    headBytes += part.length;
  };
  const lineEnded = (): void => {
    note(Buffer.concat(head).toString("utf8"));
    head = [];
    headBytes = 0;
  };
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      let from = 0;
      for (let end = chunk.indexOf(10, from); ; end = chunk.indexOf(10, from)) {
        take(chunk, from, end < 0 ? chunk.length : end);
        if (end < 0) break;
        lineEnded();
        from = end + 1;
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return next;
    throw error;
  }
  if (headBytes > 0) lineEnded(); // a last line without its newline (a crash mid-write): its head may be whole
  return next;
}
