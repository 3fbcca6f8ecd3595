// Watches slime's save folder: says each checkpoint slime finished (checkpoint-saved) and deletes the ones beyond the
// retention count (checkpoint-pruned). Ignores what is inside a checkpoint and when slime decides to save one.
import { listCheckpoints } from "../../lib/checkpoints/checkpoint-list.ts";
import { pruneCheckpoints } from "../../lib/checkpoints/checkpoint-retention.ts";
import type { EventBus } from "../event-bus.ts";

export interface CheckpointWatcherOptions {
  bus: EventBus;
  /** slime's --save folder (training.save_dir inside the run folder). */
  saveDir: string;
  /** training.keep_checkpoints. */
  keep: number;
  /** How often the folder is read (ms). */
  intervalMs?: number;
}

export class CheckpointWatcher {
  /** Iterations already said, with the folder's time, so an iteration slime saves again (after a resume) is said again. */
  private readonly announced = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: CheckpointWatcherOptions) {}

  start(): void {
    this.timer ??= setInterval(() => this.scan(), this.options.intervalMs ?? 15_000);
    this.timer.unref();
    this.scan();
  }

  /** One look at the folder: new complete checkpoints are said, then the old ones pruned. */
  scan(): void {
    const { bus, saveDir, keep } = this.options;
    try {
      for (const entry of listCheckpoints(saveDir).reverse()) {
        if (entry.inProgress || this.announced.get(entry.iteration) === entry.modifiedAt) continue;
        this.announced.set(entry.iteration, entry.modifiedAt);
        bus.emit({ type: "checkpoint-saved", iteration: entry.iteration, folder: entry.folder, bytes: entry.bytes, savedAt: entry.modifiedAt });
      }
      for (const entry of pruneCheckpoints(saveDir, keep)) {
        this.announced.delete(entry.iteration);
        bus.emit({ type: "checkpoint-pruned", iteration: entry.iteration, folder: entry.folder });
      }
    } catch (error) {
      bus.emit({ type: "error", source: "checkpoints", code: "CHECKPOINT_FOLDER", message: `reading or pruning ${saveDir} failed: ${(error as Error).message}` });
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
