// Says when the trainer stopped making progress: a full batch has waited for `stallAfterMs` and no training step,
// batch delivery or acknowledgement came in that time (TRAINER_STALLED, once per stall). Ignores why it stalled; a
// trainer kept waiting on purpose (training paused) is not stalled.
import type { RunEvent } from "../../contracts/events.ts";
import type { EventBus } from "../event-bus.ts";

export const TRAINER_STALLED = "TRAINER_STALLED";

export interface TrainerWatchdogOptions {
  bus: EventBus;
  /** Samples ready for the next batch (the store's count). */
  ready: () => number;
  batchSize: number;
  /** Whether training is paused (evaluation.stop_if_worse): the trainer is given no batch, so it is not stalled. */
  paused?: () => boolean;
  /** training.stall_after_s in ms. */
  stallAfterMs: number;
  /** How often it looks (ms); the bound is met within this much. */
  checkMs?: number;
  now?: () => number;
}

/** Events that show the trainer moving: a step it trained, a batch it took, a batch it acknowledged, a new trainer. */
export function isTrainerProgress(event: RunEvent): boolean {
  return event.type === "trainer-metrics" || event.type === "batch-delivered" || event.type === "batch-acknowledged" || event.type === "weights-version-reset";
}

export class TrainerWatchdog {
  private readonly now: () => number;
  private lastProgressAt: number;
  /** Since when ready ≥ batch size without a break (null: not full). */
  private fullSince: number | null = null;
  private reported = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: TrainerWatchdogOptions) {
    this.now = options.now ?? Date.now;
    this.lastProgressAt = this.now();
    this.unsubscribe = options.bus.subscribe((event) => {
      if (!isTrainerProgress(event)) return;
      this.lastProgressAt = this.now();
      this.reported = false;
    });
  }

  start(): void {
    this.timer ??= setInterval(() => this.check(), this.options.checkMs ?? 10_000);
    this.timer.unref();
  }

  /** One look: emits TRAINER_STALLED when the bound has passed (once until the trainer moves again). */
  check(): void {
    const { ready, batchSize, stallAfterMs, bus } = this.options;
    const now = this.now();
    const waiting = ready();
    if (waiting < batchSize || this.options.paused?.()) {
      this.fullSince = null;
      return;
    }
    this.fullSince ??= now;
    const since = Math.max(this.lastProgressAt, this.fullSince);
    if (this.reported || now - since < stallAfterMs) return;
    this.reported = true;
    const seconds = Math.round((now - since) / 1000);
    bus.emit({
      type: "error",
      source: "trainer",
      code: TRAINER_STALLED,
      message: `the trainer made no progress for ${seconds}s (no training step, batch taken or batch acknowledged) while ${waiting}/${batchSize} samples wait for it`,
      hint: "look at logs/slime-job.log (or rehearsal-trainer.log) for a hang or a stuck collective; the bound is training.stall_after_s",
    });
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe();
  }
}
