// Weight updates as a bounded timeline: an entry opens at weights-update-start and closes at -end with the new
// version and its duration; a weights-version-reset (slime restarted) is an entry of its own, `from → 0` with its
// reason. Remembers which entries changed since the last delta. Knows nothing of engines.
import type { RunEvent } from "../../../contracts/events.ts";
import type { WeightUpdate } from "./dashboard-wire.ts";

export class WeightTimeline {
  private readonly updates: WeightUpdate[] = [];
  private readonly changed = new Set<WeightUpdate>();
  private nextId = 1;

  constructor(private readonly limit: number) {}

  start(event: Extract<RunEvent, { type: "weights-update-start" }>): void {
    this.add({ id: this.nextId++, fromVersion: event.fromVersion, toVersion: null, startedAt: event.at, durationMs: null });
  }

  end(event: Extract<RunEvent, { type: "weights-update-end" }>): void {
    // an end without a start we saw (the dashboard came up mid-update) still shows up
    const update =
      [...this.updates].reverse().find((candidate) => candidate.toVersion === null) ??
      this.add({ id: this.nextId++, fromVersion: "?", toVersion: null, startedAt: event.at - event.durationMs, durationMs: null });
    update.toVersion = event.toVersion;
    update.durationMs = event.durationMs;
    this.changed.add(update);
  }

  /** slime restarted: versions count from 0 again. An update still open then never ends (its trainer is gone). */
  reset(event: Extract<RunEvent, { type: "weights-version-reset" }>): void {
    for (const update of this.updates) {
      if (update.toVersion !== null) continue;
      update.toVersion = "?";
      update.durationMs = event.at - update.startedAt;
      this.changed.add(update);
    }
    this.add({ id: this.nextId++, fromVersion: event.fromVersion, toVersion: "0", startedAt: event.at, durationMs: 0, reset: event.reason });
  }

  list(): WeightUpdate[] {
    return this.updates.map((update) => ({ ...update }));
  }

  drainChanged(): WeightUpdate[] {
    const changed = [...this.changed].map((update) => ({ ...update }));
    this.changed.clear();
    return changed;
  }

  private add(update: WeightUpdate): WeightUpdate {
    this.updates.push(update);
    if (this.updates.length > this.limit) for (const removed of this.updates.splice(0, this.updates.length - this.limit)) this.changed.delete(removed);
    this.changed.add(update);
    return update;
  }
}
