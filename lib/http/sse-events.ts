// Server-Sent Events read from text as it arrives: events end at a blank line, lines at \n, \r\n or \r (even when a
// \r\n is split between two chunks), `data:` lines join with \n, other fields and comments are kept only in `raw`.
// Ignores bytes: callers decode (a stream's setEncoding("utf8") or a streaming TextDecoder keeps characters whole).

export interface SseEvent {
  /** The event's lines as they came (line ends made \n), without the blank line that ended it. */
  raw: string;
  /** Its data lines joined with \n, each without the one space after "data:"; null when it has none (a comment). */
  data: string | null;
}

export class SseReader {
  private buffer = "";

  /** The events that `text` completes. */
  push(text: string): SseEvent[] {
    let incoming = text;
    if (this.buffer.endsWith("\r")) {
      // a \r\n split across chunks: the \r is held until its \n (or anything else) arrives
      this.buffer = this.buffer.slice(0, -1);
      incoming = "\r" + incoming;
    }
    if (incoming.includes("\r")) {
      const heldBack = incoming.endsWith("\r");
      incoming = (heldBack ? incoming.slice(0, -1) : incoming).replace(/\r\n?/g, "\n") + (heldBack ? "\r" : "");
    }
    this.buffer += incoming;
    const events: SseEvent[] = [];
    let boundary: number;
    while ((boundary = this.buffer.indexOf("\n\n")) >= 0) {
      // (more blank lines in a row end no further event)
      const raw = this.buffer.charCodeAt(0) === 10 ? this.buffer.slice(0, boundary).replace(/^\n+/, "") : this.buffer.slice(0, boundary);
      this.buffer = this.buffer.slice(boundary + 2);
      if (raw.length > 0) events.push(parseEvent(raw));
    }
    return events;
  }

  /** What is left when the stream ends: an event without its closing blank line, or null. */
  end(): SseEvent | null {
    const raw = this.buffer.replace(/\r$/, "").replace(/^\n+|\n+$/g, "");
    this.buffer = "";
    return raw.length > 0 ? parseEvent(raw) : null;
  }
}

/** Every event of a text stream, the unterminated last one included. */
export async function* sseEvents(chunks: AsyncIterable<string>): AsyncGenerator<SseEvent> {
  const reader = new SseReader();
  for await (const chunk of chunks) yield* reader.push(chunk);
  const last = reader.end();
  if (last) yield last;
}

function parseEvent(raw: string): SseEvent {
  // the usual event of an engine stream, one data line: no split
  if (raw.startsWith("data:") && !raw.includes("\n")) return { raw, data: raw.charCodeAt(5) === 32 ? raw.slice(6) : raw.slice(5) };
  let data: string | null = null;
  for (const line of raw.split("\n")) {
    if (!line.startsWith("data")) continue;
    if (line.length > 4 && line[4] !== ":") continue; // another field whose name starts with "data"
    const value = line.length === 4 ? "" : line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
    data = data === null ? value : `${data}\n${value}`;
  }
  return { raw, data };
}
