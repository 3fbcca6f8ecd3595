// Reads back, from an existing turns.jsonl, the next main turn number of each session in it (its highest turn + 1),
// so that a restarted proxy goes on numbering a continuing session's turns. Reads only each line's opening, where
// every record writes `{"version":…,"session_id":…,"turn":…`; a line of another shape is skipped.
import { createReadStream } from "node:fs";

const HEAD = /^\{"version":\d+,"session_id":("(?:[^"\\]|\\.)*"),"turn":(\d+)[,}]/;
/** Enough of a line's start for the head (session ids are short); the rest of a line is only searched for its end. */
const HEAD_BYTES = 4096;

/** Session id → next main turn, in the order the sessions last appear (most recent last). Empty when the file is missing. */
export async function nextTurnNumbers(file: string): Promise<Map<string, number>> {
  const next = new Map<string, number>();
  const note = (head: string): void => {
    const match = HEAD.exec(head);
    if (!match) return;
    const sessionId = JSON.parse(match[1]!) as string;
    const turn = Number(match[2]) + 1;
    const known = next.get(sessionId) ?? 0;
    next.delete(sessionId);
    next.set(sessionId, Math.max(known, turn));
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
