// Turns weight-version changes into weights-update-start / -end events: polls the policy engines' version
// (engine-weight-versions.ts; bounded interval, each call with a timeout) into the staleness tracker, and emits
// when the tracker moves. The engine has no "updating" query, so durationMs is the gap between the last
// poll that saw the old version and the first that saw the new one (an upper bound). The version first seen (no update
// yet) is said once, as weights-version-seen, so status and the dashboard show it before the first turn.
import type { EventBus } from "../event-bus.ts";

export interface WeightVersionFeed {
  observe(version: string): boolean;
  current(): number;
  /** The current version as shown; null until one was observed. */
  label(): string | null;
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
      const unseen = this.options.tracker.label() === null;
      this.options.tracker.observe(version);
      const label = this.options.tracker.label();
      if (unseen && label !== null) this.options.bus.emit({ type: "weights-version-seen", version: label });
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
