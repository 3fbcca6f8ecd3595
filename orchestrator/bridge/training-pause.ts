// Whether training is paused (evaluation.stop_if_worse): while paused the bridge hands the trainer no new batch, so no
// weight update comes, while the proxy keeps serving and samples keep being made. Owns the state, its events and the
// wait for a resume, and keeps its record in the run folder in step (training-pause-record.ts) so a pause outlives a
// restart; ignores why a pause was asked (held-out-guard.ts decides) and who asks to resume (the admin route).
import type { HeldOutDrop } from "../../contracts/evaluation.ts";
import type { EventBus } from "../event-bus.ts";
import type { PauseRecordFile } from "./training-pause-record.ts";

/** The admin API's route that resumes training (`openclaw-rl resume-training` posts it). */
export const RESUME_ROUTE = "/training/resume";

export interface PauseState {
  since: number;
  message: string;
}

export interface ResumeResult {
  /** False when training was not paused. */
  resumed: boolean;
  /** The pause it ended (null when none). */
  pause: PauseState | null;
}

export class TrainingPause {
  private state: PauseState | null = null;
  private readonly waiters = new Set<() => void>();
  private writes: Promise<void> = Promise.resolve();

  /**
   * `resumeHint`: how a person resumes, said with the pause (the CLI command for this run folder). `record`: where
   * the pause is kept across restarts (none: in memory only).
   */
  constructor(
    private readonly bus: EventBus,
    private readonly resumeHint: string,
    private readonly record: PauseRecordFile | null = null,
  ) {}

  paused(): boolean {
    return this.state !== null;
  }

  /** Pauses for a held-out drop (said on the bus); a pause already on stays as it was (its first reason). */
  pauseFor(drop: HeldOutDrop, message: string): boolean {
    if (this.state !== null) return false;
    const event = this.bus.emit({ type: "training-paused", reason: "held-out-worse", message, resume: this.resumeHint, drop });
    this.state = { since: event.at, message };
    this.keepRecord((record) => record.save({ since: event.at, message, drop }));
    return true;
  }

  /**
   * Pauses again when the record holds a pause from before a restart (said on the bus as a pause, since its first
   * moment, the message saying so); true when it did. A damaged record throws (training-pause-record.ts).
   */
  async restoreRecorded(): Promise<boolean> {
    const recorded = (await this.record?.read()) ?? null;
    if (recorded === null || this.state !== null) return false;
    const message = `${recorded.message} (paused before a restart, since ${new Date(recorded.since).toISOString()})`;
    this.bus.emit({ type: "training-paused", reason: recorded.reason, message, resume: this.resumeHint, drop: recorded.drop, since: recorded.since });
    this.state = { since: recorded.since, message };
    return true;
  }

  /** Resolves when the record is in step with the state (every write asked so far done, failed ones said on the bus). */
  recorded(): Promise<void> {
    return this.writes;
  }

  /** Resumes (said on the bus); batches are handed out again at once to a trainer waiting for one. */
  resume(by: string): ResumeResult {
    const pause = this.state;
    if (pause === null) return { resumed: false, pause: null };
    this.state = null;
    this.keepRecord((record) => record.clear());
    this.bus.emit({ type: "training-resumed", pausedAt: pause.since, by });
    for (const wake of this.waiters) wake();
    this.waiters.clear();
    return { resumed: true, pause };
  }

  /** A write to the record, after those asked before it; a failure is said on the bus (the pause itself holds in memory). */
  private keepRecord(write: (record: PauseRecordFile) => Promise<void>): void {
    const record = this.record;
    if (record === null) return;
    this.writes = this.writes.then(() =>
      write(record).catch((error: unknown) => {
        const message = `${record.file}: ${(error as Error).message}; the pause state in memory holds, but a restart of start will not see it`;
        this.bus.emit({ type: "error", source: "training pause", code: "PATH_UNWRITABLE", message });
      }),
    );
  }

  /** Waits until resumed (true), or `ms` passed or `signal` aborted while still paused (false); true at once when not paused. */
  waitUntilResumed(ms: number, signal: AbortSignal): Promise<boolean> {
    if (this.state === null) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (resumed: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waiters.delete(wake);
        resolve(resumed);
      };
      const wake = () => finish(true);
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(this.state === null), Math.max(0, ms));
      this.waiters.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
