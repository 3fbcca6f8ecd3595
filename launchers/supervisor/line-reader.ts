// A child's output stream as lines of bounded length. Lines end at \n, \r\n or a lone \r (a progress bar
// redrawing itself), like readline; unlike readline, a line that grows past maxChars is handed on at once as its
// first maxChars characters with a mark, and the rest of it, up to its end, is dropped: a child that prints a
// huge line without a newline costs at most maxChars characters of memory here.
import { StringDecoder } from "node:string_decoder";

/** The longest line kept of a child's output, in characters (UTF-16 code units). */
export const MAX_LINE_CHARS = 64 * 1024;

export function cutMark(maxChars: number): string {
  return ` … [line cut: longer than ${maxChars} characters, the rest of it is dropped]`;
}

export async function readLines(stream: NodeJS.ReadableStream | null | undefined, onLine: (line: string) => void, maxChars = MAX_LINE_CHARS): Promise<void> {
  if (!stream) return;
  const splitter = new LineSplitter(onLine, maxChars);
  const decoder = new StringDecoder("utf8");
  for await (const chunk of stream) splitter.push(typeof chunk === "string" ? chunk : decoder.write(chunk as Buffer));
  splitter.push(decoder.end());
  splitter.end();
}

/** Splits pushed text into lines of at most maxChars characters (plus the cut mark). */
export class LineSplitter {
  private pending = "";
  /** The current line was cut: what is left of it is dropped until it ends. */
  private cutting = false;
  /** The last line ended with \r: a \n right after it belongs to the same line end. */
  private afterCarriageReturn = false;

  constructor(private readonly onLine: (line: string) => void, private readonly maxChars = MAX_LINE_CHARS) {}

  push(text: string): void {
    let start = 0;
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code !== 10 && code !== 13) continue;
      const skip = code === 10 && this.afterCarriageReturn && index === start;
      this.append(text.slice(start, index));
      start = index + 1;
      if (!skip) this.endLine();
      this.afterCarriageReturn = code === 13;
    }
    if (start < text.length) {
      this.afterCarriageReturn = false;
      this.append(text.slice(start));
    }
  }

  /** The stream ended: a last line without a line end is still a line. */
  end(): void {
    if (this.pending.length > 0) this.onLine(this.pending);
    this.pending = "";
    this.cutting = false;
  }

  private append(text: string): void {
    if (this.cutting || text.length === 0) return;
    const room = this.maxChars - this.pending.length;
    if (text.length <= room) {
      this.pending += text;
      return;
    }
    this.onLine(this.pending + text.slice(0, room) + cutMark(this.maxChars));
    this.pending = "";
    this.cutting = true;
  }

  private endLine(): void {
    if (!this.cutting) this.onLine(this.pending);
    this.pending = "";
    this.cutting = false;
  }
}
