// The sample store's in-memory index: each stored sample's place on disk, its state (ready → delivered →
// acknowledged / dropped, and back to ready) and the ready and delivered counts. Ignores files, batches and ordering.
import type { ShareUnit } from "./batch-composition.ts";
import type { RecordLocation } from "./segment-log.ts";

export type EntryState = "ready" | "delivered" | "acknowledged" | "dropped";

export interface Entry {
  seq: number;
  id: string;
  /** Its share unit in a batch (batch-composition.ts): the session, or an episode step's task group. */
  unit: ShareUnit;
  /** When it became ready here (ms epoch; a restart starts the clock again). */
  readyAt: number;
  location: RecordLocation;
  state: EntryState;
  weightVersions: string[]; // distinct versions only, enough for the staleness rule
}

export class SampleIndex {
  private readonly entries = new Map<number, Entry>();
  private readonly seqById = new Map<string, number>();
  private readyTotal = 0;
  private deliveredTotal = 0;

  get readyCount(): number {
    return this.readyTotal;
  }

  get deliveredCount(): number {
    return this.deliveredTotal;
  }

  add(entry: Entry): void {
    this.entries.set(entry.seq, entry);
    this.seqById.set(entry.id, entry.seq);
    if (entry.state === "ready") this.readyTotal += 1;
  }

  get(seq: number): Entry | undefined {
    return this.entries.get(seq);
  }

  seqOf(id: string): number | undefined {
    return this.seqById.get(id);
  }

  /** Every seq still indexed (those of deleted segments are forgotten). */
  seqs(): Set<number> {
    return new Set(this.entries.keys());
  }

  all(): IterableIterator<Entry> {
    return this.entries.values();
  }

  /** The ready entries, oldest seq first. */
  ready(): Entry[] {
    return [...this.entries.values()].filter((entry) => entry.state === "ready").sort((a, b) => a.seq - b.seq);
  }

  /** When the oldest ready sample became ready (ms since the epoch); null when none is ready. */
  oldestReadyAt(): number | null {
    let oldest: number | null = null;
    for (const entry of this.entries.values()) if (entry.state === "ready" && (oldest === null || entry.readyAt < oldest)) oldest = entry.readyAt;
    return oldest;
  }

  /** Ready → delivered, for those of `seqs` that are ready; returns how many moved. */
  markDelivered(seqs: readonly number[]): number {
    let moved = 0;
    for (const seq of seqs) {
      const entry = this.entries.get(seq);
      if (entry?.state !== "ready") continue;
      entry.state = "delivered";
      moved += 1;
    }
    this.readyTotal -= moved;
    this.deliveredTotal += moved;
    return moved;
  }

  /** Delivered → ready (a batch given back). */
  backToReady(seqs: readonly number[]): void {
    for (const seq of seqs) {
      const entry = this.entries.get(seq);
      if (entry?.state !== "delivered") continue;
      entry.state = "ready";
      this.readyTotal += 1;
      this.deliveredTotal -= 1;
    }
  }

  /** Delivered → acknowledged. */
  markAcknowledged(seqs: readonly number[]): void {
    for (const seq of seqs) {
      const entry = this.entries.get(seq);
      if (entry?.state !== "delivered") continue;
      entry.state = "acknowledged";
      this.deliveredTotal -= 1;
    }
  }

  /** Ready → dropped (too stale to train on). */
  markDropped(entry: Entry): void {
    if (entry.state !== "ready") return;
    entry.state = "dropped";
    this.readyTotal -= 1;
  }

  /** Segments all of whose samples are acknowledged or dropped, the one still being written aside. */
  finishedSegments(activeSegment: number): number[] {
    const unfinished = new Set<number>();
    const segments = new Set<number>();
    for (const entry of this.entries.values()) {
      segments.add(entry.location.segment);
      if (entry.state === "ready" || entry.state === "delivered") unfinished.add(entry.location.segment);
    }
    return [...segments].filter((segment) => !unfinished.has(segment) && segment !== activeSegment);
  }

  /** Forgets the samples of a deleted segment. */
  forgetSegment(segment: number): void {
    for (const [seq, entry] of this.entries) {
      if (entry.location.segment !== segment) continue;
      this.entries.delete(seq);
      this.seqById.delete(entry.id);
    }
  }
}
