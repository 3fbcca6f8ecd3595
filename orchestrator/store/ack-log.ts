// The store's decision log: which batches were handed out (to which client, for which rollout) and then acknowledged
// or given back, which samples were dropped; fsync'd line by line, one write at a time, tolerant of a torn last line,
// rewritten to forget samples whose segment is gone. Knows nothing of segments.
import { readFile, truncate } from "node:fs/promises";
import { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { appendDurably, replaceDurably } from "../../lib/durable-file.ts";

const totalsEntry = z.object({ t: z.literal("totals"), acknowledged: z.number(), droppedStale: z.number(), nextSeq: z.number(), batches: z.array(z.string()) });
const ackEntry = z.object({ t: z.literal("ack"), batch: z.string(), rollout: z.number(), seqs: z.array(z.number()), at: z.number() });
const dropEntry = z.object({ t: z.literal("drop"), seq: z.number(), id: z.string(), reason: z.string(), detail: z.string(), at: z.number() });
/** A batch handed out (or handed again to a new client session): outstanding until acknowledged or released. */
const handoutEntry = z.object({ t: z.literal("handout"), batch: z.string(), rollout: z.number(), session: z.string(), seqs: z.array(z.number()), at: z.number() });
const releaseEntry = z.object({ t: z.literal("release"), batch: z.string(), at: z.number() });
const entrySchema = z.discriminatedUnion("t", [totalsEntry, ackEntry, dropEntry, handoutEntry, releaseEntry]);

export interface HandedOutBatch {
  rollout: number;
  session: string;
  seqs: number[];
}

/** Batch ids remembered after compaction, so a retried ack of an old batch is still answered "already". */
const REMEMBERED_BATCHES = 1000;

export interface AckLogState {
  acknowledged: Set<number>;
  dropped: Set<number>;
  batches: string[]; // acknowledged batch ids, oldest first
  handedOut: Map<string, HandedOutBatch>; // outstanding: handed out, neither acknowledged nor released
  base: { acknowledged: number; droppedStale: number }; // counts of forgotten entries
  nextSeq: number;
  tornBytes: number;
}

export class AckLog {
  /** Writes in the order they were asked for (a release is on disk before a batch that hands its samples out again). */
  private writing: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private readonly dir: string,
    readonly state: AckLogState,
  ) {}

  static async open(path: string, dir: string): Promise<AckLog> {
    let text = "";
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const state: AckLogState = { acknowledged: new Set(), dropped: new Set(), batches: [], handedOut: new Map(), base: { acknowledged: 0, droppedStale: 0 }, nextSeq: 1, tornBytes: 0 };
    let intact = 0;
    const lines = text.split("\n");
    const complete = lines.slice(0, -1); // the part after the last newline is a torn write (or empty)
    for (const [index, line] of complete.entries()) {
      const entry = line === "" ? null : parseLine(line);
      if (!entry) {
        if (line === "" || index === complete.length - 1) break; // a damaged final line: a crash, cut it off
        throw new OpenclawRlError("STORE_CORRUPT", `acknowledgement log ${path} line ${index + 1} is unreadable`, {
          path,
          hint: "a disk error, not a crash; move the run folder's store aside to start fresh",
        });
      }
      apply(state, entry);
      intact += Buffer.byteLength(line, "utf8") + 1;
    }
    const total = Buffer.byteLength(text, "utf8");
    if (intact < total) {
      state.tornBytes = total - intact;
      await truncate(path, intact);
    }
    return new AckLog(path, dir, state);
  }

  recordAck(batch: string, rollout: number, seqs: number[]): Promise<void> {
    return this.append({ t: "ack", batch, rollout, seqs, at: Date.now() });
  }

  recordDrop(seq: number, id: string, reason: string, detail: string): Promise<void> {
    return this.append({ t: "drop", seq, id, reason, detail, at: Date.now() });
  }

  recordHandout(batch: string, rollout: number, session: string, seqs: number[]): Promise<void> {
    return this.append({ t: "handout", batch, rollout, session, seqs, at: Date.now() });
  }

  recordRelease(batch: string): Promise<void> {
    return this.append({ t: "release", batch, at: Date.now() });
  }

  /** Appends the entry durably, after every write asked for before it; the state changes once it is on disk. */
  private append(entry: z.infer<typeof entrySchema>): Promise<void> {
    return this.serially(async () => {
      await appendDurably(this.path, JSON.stringify(entry) + "\n");
      apply(this.state, entry);
    });
  }

  private serially<T>(write: () => Promise<T>): Promise<T> {
    const result = this.writing.then(write, write);
    this.writing = result.catch(() => undefined);
    return result;
  }

  /** Rewrites the log keeping only decisions about `liveSeqs` and the outstanding batches; forgotten decisions move into the base counts. */
  compact(liveSeqs: Set<number>, nextSeq: number): Promise<void> {
    return this.serially(() => this.compactNow(liveSeqs, nextSeq));
  }

  private async compactNow(liveSeqs: Set<number>, nextSeq: number): Promise<void> {
    const state = this.state;
    const keptAcks = [...state.acknowledged].filter((seq) => liveSeqs.has(seq));
    const keptDrops = [...state.dropped].filter((seq) => liveSeqs.has(seq));
    state.base.acknowledged += state.acknowledged.size - keptAcks.length;
    state.base.droppedStale += state.dropped.size - keptDrops.length;
    state.acknowledged = new Set(keptAcks);
    state.dropped = new Set(keptDrops);
    state.batches = state.batches.slice(-REMEMBERED_BATCHES);
    state.nextSeq = Math.max(state.nextSeq, nextSeq);
    const lines = [JSON.stringify({ t: "totals", ...state.base, nextSeq: state.nextSeq, batches: state.batches })];
    if (keptAcks.length > 0) lines.push(JSON.stringify({ t: "ack", batch: "(compacted)", rollout: -1, seqs: keptAcks, at: Date.now() }));
    for (const seq of keptDrops) lines.push(JSON.stringify({ t: "drop", seq, id: "(compacted)", reason: "stale", detail: "", at: Date.now() }));
    for (const [batch, { rollout, session, seqs }] of state.handedOut) lines.push(JSON.stringify({ t: "handout", batch, rollout, session, seqs, at: Date.now() }));
    await replaceDurably(this.path, this.dir, lines.join("\n") + "\n");
  }
}

function parseLine(line: string): z.infer<typeof entrySchema> | null {
  try {
    const parsed = entrySchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function apply(state: AckLogState, entry: z.infer<typeof entrySchema>): void {
  switch (entry.t) {
    case "totals":
      state.base = { acknowledged: entry.acknowledged, droppedStale: entry.droppedStale };
      state.nextSeq = Math.max(state.nextSeq, entry.nextSeq);
      state.batches.push(...entry.batches);
      break;
    case "ack":
      for (const seq of entry.seqs) state.acknowledged.add(seq);
      if (entry.batch !== "(compacted)") state.batches.push(entry.batch);
      state.handedOut.delete(entry.batch);
      break;
    case "handout":
      state.handedOut.set(entry.batch, { rollout: entry.rollout, session: entry.session, seqs: entry.seqs });
      break;
    case "release":
      state.handedOut.delete(entry.batch);
      break;
    case "drop":
      state.dropped.add(entry.seq);
      break;
  }
}
