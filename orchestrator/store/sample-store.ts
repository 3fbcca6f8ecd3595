// The durable sample store: samples on disk before they count as ready, batches recorded before they leave, then
// acknowledged or given back, stale ones dropped, finished segments deleted. Knows nothing of HTTP or file formats.
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { SampleFrameHeader } from "../../contracts/bridge.ts";
import { SAMPLE_FRAME_MAGIC } from "../../contracts/bridge.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Sample } from "../../contracts/sample.ts";
import type { PutOutcome, SampleSink } from "../../contracts/sample-sink.ts";
import type { StalenessPolicy } from "../weights/staleness-policy.ts";
import { AckLog } from "./ack-log.ts";
import { activeUnits, composeBatch, sessionCap, shareUnit, type BatchComposition, type FairBatchRule } from "./batch-composition.ts";
import { appendDurably } from "../../lib/durable-file.ts";
import { ReadyWaiters } from "./ready-waiters.ts";
import { encodeSample, parseFrame, type StorableSample } from "./sample-frame.ts";
import { SampleIndex, type EntryState } from "./sample-index.ts";
import { SegmentLog } from "./segment-log.ts";

export interface SampleStoreOptions {
  /** The staleness rule over the run's weight-version owner (recipe.training.max_staleness). */
  staleness: StalenessPolicy;
  /** Rotate segment files at this size (default 64 MiB). */
  segmentBytes?: number;
  /** One session's most share of a batch, fitted to the active sessions (recipe training.fair_batch); without it a batch is the oldest ready samples. */
  fairBatch?: FairBatchRule;
}

const NO_CAP: FairBatchRule = { maxSessionShare: 1, relaxAfterMs: 0 };

export interface StoreCounts {
  ready: number;
  delivered: number; // handed out, not yet acknowledged
  acknowledged: number; // cumulative, across restarts
  droppedStale: number; // cumulative, across restarts
}

export interface DeliveredBatch {
  batchId: string;
  rolloutId: number;
  seqs: number[];
  frames: Buffer[]; // sample frames (contracts/bridge.ts), in seq order
  /** How it was composed; absent when an outstanding batch is handed out again. */
  composition?: Omit<BatchComposition, "seqs">;
}

/** A batch handed out and neither acknowledged nor given back (it survives a restart). */
export interface OutstandingBatch {
  batchId: string;
  rolloutId: number;
  /** The bridge client session it was handed to ("" when handed out without one). */
  session: string;
  size: number;
}

export interface DroppedSample {
  seq: number;
  id: string;
  detail: string;
}

export interface StoreRecovery {
  samples: number;
  ready: number;
  tornBytes: number;
}

/** A batch's worth ready but held back by the per-session share (SampleStore.held). */
export interface HeldBatch {
  activeSessions: number;
  perSession: number;
  /** The share units over the share, most ready first (at most 3): a session id, or an episode task group's. */
  sessions: Array<{ unit: string; ready: number }>;
  /** When the held-back samples complete a batch (ms epoch); null when none is over the share. */
  completesAt: number | null;
}

export class SampleStore implements SampleSink {
  private readonly index = new SampleIndex();
  private readonly pendingIds = new Map<string, { frame: Buffer; write: Promise<void> }>();
  private readonly batches = new Map<string, { rolloutId: number; seqs: number[]; session: string }>();
  /** Acknowledgements being written: a retried ack of the same batch waits for it instead of finding it gone. */
  private readonly acking = new Map<string, Promise<{ already: boolean; seqs: number[] }>>();
  private readonly readyWaiters = new ReadyWaiters();
  private readonly droppedListeners = new Set<(dropped: DroppedSample) => void>();
  private compacting: Promise<void> | null = null;

  private constructor(
    private readonly dir: string,
    private readonly log: SegmentLog,
    private readonly acks: AckLog,
    private readonly options: SampleStoreOptions,
    private nextSeq: number,
    readonly recovery: StoreRecovery,
  ) {}

  static async open(dir: string, options: SampleStoreOptions): Promise<SampleStore> {
    await mkdir(dir, { recursive: true });
    const { log, recovery } = await SegmentLog.open(dir, options.segmentBytes ?? 64 * 1024 * 1024);
    const acks = await AckLog.open(join(dir, "acks.log"), dir);
    let nextSeq = acks.state.nextSeq;
    const store = new SampleStore(dir, log, acks, options, nextSeq, { samples: recovery.records.length, ready: 0, tornBytes: recovery.tornBytes + acks.state.tornBytes });
    for (const record of recovery.records) {
      const { header } = parseFrame<SampleFrameHeader>(record.payload, SAMPLE_FRAME_MAGIC);
      const state: EntryState = acks.state.acknowledged.has(header.seq) ? "acknowledged" : acks.state.dropped.has(header.seq) ? "dropped" : "ready";
      store.index.add({ seq: header.seq, id: header.id, unit: shareUnit(header), readyAt: Date.now(), location: record.location, state, weightVersions: header.weightVersions.map(([version]) => version) });
      nextSeq = Math.max(nextSeq, header.seq + 1);
    }
    store.nextSeq = nextSeq;
    store.restoreHandedOut();
    store.recovery.ready = store.index.readyCount;
    await store.compact(true);
    return store;
  }

  /** Batches handed out before a restart stay out, under the same id, until acknowledged or given back. */
  private restoreHandedOut(): void {
    for (const [batchId, batch] of this.acks.state.handedOut) {
      const seqs = batch.seqs.filter((seq) => this.index.get(seq)?.state === "ready");
      this.index.markDelivered(seqs);
      this.batches.set(batchId, { rolloutId: batch.rollout, seqs, session: batch.session });
    }
  }

  /**
   * Resolves once the sample is written and fsync'd ("stored"). Putting the same sample again (same id, same
   * content) writes nothing ("already-stored"); a different sample under a stored id is refused (SAMPLE_DUPLICATE).
   */
  async put(sample: Sample): Promise<PutOutcome> {
    const storedSeq = this.index.seqOf(sample.id);
    if (storedSeq !== undefined) {
      const entry = this.index.get(storedSeq)!;
      return this.samePutAgain(sample, storedSeq, await this.log.read(entry.location));
    }
    const pending = this.pendingIds.get(sample.id);
    if (pending) {
      await pending.write;
      const seq = this.index.seqOf(sample.id)!;
      return this.samePutAgain(sample, seq, pending.frame);
    }
    const seq = this.nextSeq++;
    const frame = encodeSample(sample as StorableSample, seq); // throws BAD_REQUEST before any state changes
    const write = this.log.append(frame).then((location) => {
      this.index.add({ seq, id: sample.id, unit: shareUnit(sample), readyAt: Date.now(), location, state: "ready", weightVersions: [...new Set(sample.weightVersions)] });
      this.readyWaiters.wakeAll();
    });
    this.pendingIds.set(sample.id, { frame, write });
    try {
      await write;
    } finally {
      this.pendingIds.delete(sample.id);
    }
    return "stored";
  }

  /** A put of an id already stored: the same sample is fine, another one is refused. */
  private samePutAgain(sample: Sample, seq: number, storedFrame: Buffer): PutOutcome {
    if (encodeSample(sample as StorableSample, seq).equals(storedFrame)) return "already-stored";
    throw new OpenclawRlError("SAMPLE_DUPLICATE", `sample ${sample.id} was not stored: another sample with that id is stored already (seq ${seq})`, {
      path: sample.id,
      hint: "sample ids are <session>:<turn>; two different turns got the same number in one session",
    });
  }

  counts(): StoreCounts {
    const base = this.acks.state.base;
    return {
      ready: this.index.readyCount,
      delivered: this.index.deliveredCount,
      acknowledged: base.acknowledged + this.acks.state.acknowledged.size,
      droppedStale: base.droppedStale + this.acks.state.dropped.size,
    };
  }

  /** The staleness rule the store drops by (the bridge frames batches with the same one). */
  get staleness(): StalenessPolicy {
    return this.options.staleness;
  }

  onDropped(listener: (dropped: DroppedSample) => void): () => void {
    this.droppedListeners.add(listener);
    return () => this.droppedListeners.delete(listener);
  }

  /**
   * Resolves with the ready count once a batch of `size` can be made (enough ready samples, within the per-session
   * share), a partial batch is due (the oldest ready sample has waited `partialAfterMs`, when above 0), or
   * `timeoutMs` has passed.
   */
  async waitForReady(size: number, timeoutMs: number, signal?: AbortSignal, partialAfterMs = 0): Promise<number> {
    await this.dropStale();
    if (this.compose(size) !== null || this.partialDue(partialAfterMs) || timeoutMs <= 0 || signal?.aborted) return this.index.readyCount;
    const enough = () => this.compose(size) !== null || this.partialDue(partialAfterMs);
    // checks again when the oldest ready sample's wait runs out
    const partialAt = () => {
      const oldest = partialAfterMs > 0 ? this.oldestReadyAt() : null;
      return oldest === null ? null : oldest + partialAfterMs;
    };
    await this.readyWaiters.wait(enough, partialAt, timeoutMs, signal);
    await this.dropStale();
    return this.index.readyCount;
  }

  /** When the oldest ready sample became ready (ms since the epoch); null when none is ready. */
  oldestReadyAt(): number | null {
    return this.index.oldestReadyAt();
  }

  /** Whether a partial batch is due: some sample is ready and the oldest has waited `partialAfterMs` (0: never). */
  partialDue(partialAfterMs: number): boolean {
    const oldest = partialAfterMs > 0 ? this.oldestReadyAt() : null;
    return oldest !== null && Date.now() - oldest >= partialAfterMs;
  }

  /** Drops ready samples that are too old for the current weight version: recorded, counted, announced. */
  async dropStale(): Promise<DroppedSample[]> {
    const current = this.options.staleness.current(); // one version for the whole pass (it awaits between drops)
    const dropped: DroppedSample[] = [];
    for (const entry of this.index.all()) {
      const detail = entry.state === "ready" ? this.options.staleness.staleReason(entry.weightVersions, current) : null;
      if (detail === null) continue;
      this.index.markDropped(entry);
      await this.acks.recordDrop(entry.seq, entry.id, "stale", detail);
      await appendDurably(join(this.dir, "dropped.jsonl"), JSON.stringify({ id: entry.id, seq: entry.seq, reason: "stale", detail, at: Date.now() }) + "\n");
      dropped.push({ seq: entry.seq, id: entry.id, detail });
    }
    for (const item of dropped) for (const listener of this.droppedListeners) listener(item);
    if (dropped.length > 0) await this.compact(false);
    return dropped;
  }

  /** The next batch of `size` from the ready samples, oldest first within the per-session share; null when none can be made now. */
  private compose(size: number): BatchComposition | null {
    if (this.index.readyCount < size) return null;
    const staleness = this.options.staleness;
    const current = staleness.current();
    const ready = this.index
      .ready()
      .map((entry) => ({ seq: entry.seq, ...entry.unit, readyAt: entry.readyAt, lastChance: staleness.isLastChance(entry.weightVersions, current) }));
    return composeBatch(ready, size, this.options.fairBatch ?? NO_CAP, Date.now());
  }

  /**
   * Why a batch's worth of ready samples makes no batch of `size` now, or null when one can be made (or too few are
   * ready): the share, the sessions over it with their ready counts (most first), and when the held-back samples
   * complete a batch (the oldest held-back chat sample's relax_after_s; now for a task group's).
   */
  held(size: number): HeldBatch | null {
    if (this.index.readyCount < size || this.compose(size) !== null) return null;
    const share = this.share(size);
    const units = new Map<string, { ready: number; oldest: number; episodeGroup: boolean }>();
    for (const entry of this.index.ready()) {
      const unit = units.get(entry.unit.unit) ?? { ready: 0, oldest: entry.readyAt, episodeGroup: entry.unit.episodeGroup === true };
      units.set(entry.unit.unit, { ...unit, ready: unit.ready + 1, oldest: Math.min(unit.oldest, entry.readyAt) });
    }
    const over = [...units.entries()].filter(([, unit]) => unit.ready > share.perSession).sort((a, b) => b[1].ready - a[1].ready);
    const relaxMs = (this.options.fairBatch ?? NO_CAP).relaxAfterMs;
    const completesAt = over.length === 0 ? null : Math.min(...over.map(([, unit]) => (unit.episodeGroup ? Date.now() : unit.oldest + relaxMs)));
    return { ...share, sessions: over.slice(0, 3).map(([unit, { ready }]) => ({ unit: unit.replace(/^(session|group):/, ""), ready })), completesAt };
  }

  /** The share as it stands: sessions (share units) with a sample ready, and the most of a batch of `size` one of them may hold. */
  share(size: number): { activeSessions: number; perSession: number } {
    const activeSessions = activeUnits(this.index.ready().map((entry) => entry.unit));
    return { activeSessions, perSession: sessionCap(size, (this.options.fairBatch ?? NO_CAP).maxSessionShare, activeSessions) };
  }

  /**
   * Hands out a batch of `size` (after dropping stale ones): the oldest ready samples, no session above its share
   * (training.fair_batch); those held back stay ready, in order, for later batches. Null when none can be made.
   */
  async deliver(size: number, rolloutId: number, session = ""): Promise<DeliveredBatch | null> {
    await this.dropStale();
    const composed = this.compose(size);
    if (composed === null) return null;
    const { seqs, ...composition } = composed;
    this.index.markDelivered(seqs);
    const batchId = `b${rolloutId}-${randomBytes(6).toString("hex")}`;
    try {
      await this.acks.recordHandout(batchId, rolloutId, session, seqs); // on disk before it leaves
    } catch (error) {
      this.backToReady(seqs);
      throw new OpenclawRlError("INTERNAL", `could not record the hand-out of ${batchId}`, { cause: error, retryable: true });
    }
    this.batches.set(batchId, { rolloutId, seqs, session });
    try {
      return { batchId, rolloutId, seqs, frames: await this.readFrames(seqs), composition };
    } catch (error) {
      await this.release(batchId);
      throw error;
    }
  }

  /**
   * A partial batch (training.max_wait_s): the largest batch of at most `size` that the per-session share lets be
   * made from what is ready now (one sample always can); null when nothing is ready.
   */
  async deliverPartial(size: number, rolloutId: number, session = ""): Promise<DeliveredBatch | null> {
    await this.dropStale();
    for (let take = Math.min(this.index.readyCount, size); take >= 1; take--) if (this.compose(take) !== null) return this.deliver(take, rolloutId, session);
    return null;
  }

  /** Every batch out now, oldest rollout first. */
  outstanding(): OutstandingBatch[] {
    return [...this.batches].map(([batchId, batch]) => ({ batchId, rolloutId: batch.rolloutId, session: batch.session, size: batch.seqs.length })).sort((a, b) => a.rolloutId - b.rolloutId);
  }

  /**
   * An outstanding batch handed out again, the same id and samples (a client asking again for a rollout whose answer
   * it never got, or a restarted trainer replaying it), now to `session`; null when it is not outstanding.
   */
  async handOutAgain(batchId: string, session: string): Promise<DeliveredBatch | null> {
    const batch = this.batches.get(batchId);
    if (!batch) return null;
    if (batch.session !== session) {
      await this.acks.recordHandout(batchId, batch.rolloutId, session, batch.seqs);
      batch.session = session;
    }
    return { batchId, rolloutId: batch.rolloutId, seqs: [...batch.seqs], frames: await this.readFrames(batch.seqs) };
  }

  private readFrames(seqs: readonly number[]): Promise<Buffer[]> {
    return Promise.all(seqs.map((seq) => this.log.read(this.index.get(seq)!.location)));
  }

  /**
   * Durably acknowledges a handed-out batch. `already` for a batch acknowledged before, or by an acknowledgement
   * still being written when this one came (a client's retry): it waits for that one first. Null if unknown.
   */
  async acknowledge(batchId: string): Promise<{ already: boolean; seqs: number[] } | null> {
    const inFlight = this.acking.get(batchId);
    if (inFlight) {
      const first = await inFlight.catch(() => null);
      // the first one failed and put the batch back: this one tries again
      return first ? { already: true, seqs: first.seqs } : this.acknowledge(batchId);
    }
    const batch = this.batches.get(batchId);
    if (!batch) return this.acks.state.batches.includes(batchId) ? { already: true, seqs: [] } : null;
    this.batches.delete(batchId);
    const writing = this.recordAck(batchId, batch);
    this.acking.set(batchId, writing);
    try {
      return await writing;
    } finally {
      this.acking.delete(batchId);
    }
  }

  private async recordAck(batchId: string, batch: { rolloutId: number; seqs: number[]; session: string }): Promise<{ already: boolean; seqs: number[] }> {
    try {
      await this.acks.recordAck(batchId, batch.rolloutId, batch.seqs);
    } catch (error) {
      this.batches.set(batchId, batch);
      throw new OpenclawRlError("INTERNAL", `could not record the acknowledgement of ${batchId}`, { cause: error, retryable: true });
    }
    this.index.markAcknowledged(batch.seqs);
    await this.compact(false);
    return { already: false, seqs: batch.seqs };
  }

  /**
   * Puts a handed-out, unacknowledged batch back (its client went away, or never got it): recorded durably first, so
   * its samples are never out in two batches at once, not even across a restart.
   */
  async release(batchId: string): Promise<boolean> {
    const batch = this.batches.get(batchId);
    if (!batch) return false;
    this.batches.delete(batchId);
    try {
      await this.acks.recordRelease(batchId);
    } catch (error) {
      this.batches.set(batchId, batch);
      throw new OpenclawRlError("INTERNAL", `could not record the release of ${batchId}`, { cause: error, retryable: true });
    }
    this.backToReady(batch.seqs);
    return true;
  }

  private backToReady(seqs: readonly number[]): void {
    this.index.backToReady(seqs);
    this.readyWaiters.wakeAll();
  }

  /** Deletes segments whose samples are all acknowledged or dropped, then forgets them in the ack log. */
  private async compact(force: boolean): Promise<void> {
    while (this.compacting) await this.compacting;
    this.compacting = this.compactNow(force).finally(() => {
      this.compacting = null;
    });
    return this.compacting;
  }

  private async compactNow(force: boolean): Promise<void> {
    const finished = this.index.finishedSegments(this.log.activeSegment);
    for (const segment of finished) {
      await this.log.remove(segment);
      this.index.forgetSegment(segment);
    }
    if (finished.length > 0 || force) await this.acks.compact(this.index.seqs(), this.nextSeq);
  }

  async close(): Promise<void> {
    this.readyWaiters.wakeAll();
    await this.log.close();
  }
}
