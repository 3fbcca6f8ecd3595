// A byte-offset index of one append-only JSONL records file (turns.jsonl, judgements.jsonl): scans only new
// bytes, in bounded chunks, and reads one record back by key with a size cap. Never loads the whole file.
import { open, stat } from "node:fs/promises";

export interface RecordIndexLimits {
  /** Records larger than this are indexed but not returned (the caller is told their size). */
  maxRecordBytes: number;
  /** Keys kept; the oldest are forgotten beyond this. */
  maxEntries: number;
  /** Bytes scanned per refresh; the rest is scanned by the next lookups. */
  scanBudgetBytes: number;
}

export const defaultRecordIndexLimits: RecordIndexLimits = {
  maxRecordBytes: 4 * 1024 * 1024,
  maxEntries: 50_000,
  scanBudgetBytes: 256 * 1024 * 1024,
};

export type RecordKeyOf = (record: unknown) => string | null;

export type RecordLookup =
  | { found: true; record: unknown }
  | { found: false; reason: "missing" | "not-recorded" | "too-large" | "unreadable"; detail: string };

interface Entry {
  offset: number;
  length: number;
}

const chunkBytes = 1024 * 1024;
const keyPrefixBytes = 64 * 1024;

export class RecordIndex {
  private readonly entries = new Map<string, Entry>();
  private scanned = 0; // bytes of the file already indexed (always at a line start)
  private readonly limits: RecordIndexLimits;

  constructor(
    readonly path: string,
    private readonly keyOf: RecordKeyOf,
    limits: Partial<RecordIndexLimits> = {},
  ) {
    this.limits = { ...defaultRecordIndexLimits, ...limits };
  }

  get size(): number {
    return this.entries.size;
  }

  async lookup(key: string): Promise<RecordLookup> {
    const exists = await this.refresh();
    if (!exists) return { found: false, reason: "missing", detail: `${this.path} does not exist (yet)` };
    const entry = this.entries.get(key);
    if (!entry) return { found: false, reason: "not-recorded", detail: `no record for this turn in ${this.path} yet (records are written once a turn is closed and judged)` };
    if (entry.length > this.limits.maxRecordBytes) {
      return { found: false, reason: "too-large", detail: `the record is ${entry.length} bytes; the dashboard reads at most ${this.limits.maxRecordBytes}` };
    }
    const handle = await open(this.path, "r");
    try {
      const buffer = Buffer.alloc(entry.length);
      const { bytesRead } = await handle.read(buffer, 0, entry.length, entry.offset);
      return { found: true, record: JSON.parse(buffer.subarray(0, bytesRead).toString("utf8")) };
    } catch (error) {
      return { found: false, reason: "unreadable", detail: error instanceof Error ? error.message : String(error) };
    } finally {
      await handle.close();
    }
  }

  /** Indexes complete lines appended since the last scan (up to the budget). False when the file is absent. */
  async refresh(): Promise<boolean> {
    let size: number;
    try {
      size = (await stat(this.path)).size;
    } catch {
      return false;
    }
    if (size < this.scanned) {
      // the file was replaced or truncated: start over
      this.entries.clear();
      this.scanned = 0;
    }
    if (size === this.scanned) return true;
    const handle = await open(this.path, "r");
    try {
      await this.scan(handle, Math.min(size, this.scanned + this.limits.scanBudgetBytes));
    } finally {
      await handle.close();
    }
    return true;
  }

  private async scan(handle: Awaited<ReturnType<typeof open>>, until: number): Promise<void> {
    const buffer = Buffer.alloc(chunkBytes);
    let lineStart = this.scanned;
    let position = this.scanned;
    let prefix: Buffer[] = []; // the first bytes of the current line, enough to find its key
    let prefixLength = 0;
    while (position < until) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(chunkBytes, until - position), position);
      if (bytesRead === 0) break;
      let from = 0;
      for (;;) {
        const newline = buffer.indexOf(10, from);
        const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
        const keep = Math.min(end - from, this.limits.maxRecordBytes + 1 - prefixLength);
        if (keep > 0) {
          prefix.push(Buffer.from(buffer.subarray(from, from + keep)));
          prefixLength += keep;
        }
        if (end === bytesRead) break;
        const lineEnd = position + newline; // exclusive of the newline
        this.indexLine(Buffer.concat(prefix, prefixLength), lineStart, lineEnd - lineStart);
        lineStart = lineEnd + 1;
        prefix = [];
        prefixLength = 0;
        from = newline + 1;
      }
      position += bytesRead;
    }
    this.scanned = lineStart; // a partial last line is scanned again once it is complete
  }

  private indexLine(bytes: Buffer, offset: number, length: number): void {
    if (length === 0) return;
    let key: string | null = null;
    if (length <= this.limits.maxRecordBytes) {
      try {
        key = this.keyOf(JSON.parse(bytes.toString("utf8")));
      } catch {
        return; // a torn or foreign line: not a record
      }
    } else {
      key = keyFromPrefix(bytes.subarray(0, keyPrefixBytes).toString("utf8"), this.keyOf);
    }
    if (key === null) return;
    this.entries.delete(key); // the newest record of a key wins and becomes the youngest entry
    this.entries.set(key, { offset, length });
    if (this.entries.size > this.limits.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

/** Best effort for oversized records: pull top-level-looking session and turn fields out of the line's start. */
function keyFromPrefix(text: string, keyOf: RecordKeyOf): string | null {
  const session = /"(?:sessionId|session_id)"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text);
  const turn = /"(?:turn|turnIndex|turn_index)"\s*:\s*(\d+)/.exec(text);
  if (!session?.[1] || !turn?.[1]) return null;
  try {
    return keyOf({ sessionId: JSON.parse(session[1]) as string, turn: Number(turn[1]) });
  } catch {
    return null;
  }
}
