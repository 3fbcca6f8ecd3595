// Turns weight-version changes into weights-update-start / -end events: polls the policy engines' version
// (engine-weight-versions.ts; bounded interval, each call with a timeout) into the staleness tracker, and emits
// when the tracker moves. The engine has no "updating" query, so durationMs is the gap between the last
// poll that saw the old version and the first that saw the new one (an upper bound).
import type { EventBus } from "../event-bus.ts";

export interface WeightVersionFeed {
  observe(version: string): boolean;
  current(): number;
  onChange(listener: (current: number, previous: number) => void): () => void;
}

export interface WeightUpdateWatcherOptions {
  bus: EventBus;
  tracker: WeightVersionFeed;
  /** Reads the engines' version (readEngineVersions); null when none answers. */
  readVersion: () => Promise<string | null>;
  intervalMs?: number;
}

export class WeightUpdateWatcher {
  private timer: NodeJS.Timeout | null = null;
  private lastSeenOldAt = Date.now();
  private readonly unsubscribe: () => void;
  private polling = false;

  constructor(private readonly options: WeightUpdateWatcherOptions) {
    this.unsubscribe = options.tracker.onChange((current, previous) => {
      options.bus.emit({ type: "weights-update-start", fromVersion: String(previous) });
      options.bus.emit({ type: "weights-update-end", toVersion: String(current), durationMs: Date.now() - this.lastSeenOldAt });
      this.lastSeenOldAt = Date.now();
    });
  }

  start(): void {
    if (this.timer) return;
    const interval = this.options.intervalMs ?? 2000;
    this.timer = setInterval(() => void this.poll(), interval);
    this.timer.unref();
  }

  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const version = await this.options.readVersion();
      if (version === null) return;
      const before = this.options.tracker.current();
      this.options.tracker.observe(version);
      if (this.options.tracker.current() === before) this.lastSeenOldAt = Date.now();
    } finally {
      this.polling = false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe();
  }
}
