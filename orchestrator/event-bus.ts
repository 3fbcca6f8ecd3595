// The run's event bus: typed RunEvents in, listeners out, plus a bounded in-memory history for late
// subscribers (status --watch, the dashboard). Knows nothing of HTTP or ws.
import type { RunEvent, RunEventInput } from "../contracts/events.ts";

export type RunEventListener = (event: RunEvent) => void;

export class EventBus {
  private readonly listeners = new Set<RunEventListener>();
  private readonly history: RunEvent[] = [];

  constructor(private readonly historyLimit = 5000) {}

  emit(input: RunEventInput): RunEvent {
    const event = { ...input, at: Date.now() } as RunEvent;
    this.history.push(event);
    // trim in chunks: a splice per emit moves the whole history each time (seconds over 10,000 turns)
    if (this.history.length > this.historyLimit + Math.ceil(this.historyLimit / 8)) this.history.splice(0, this.history.length - this.historyLimit);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // a failing listener must not break the emitter (or the other listeners)
      }
    }
    return event;
  }

  subscribe(listener: RunEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  recent(limit = this.historyLimit): RunEvent[] {
    return this.history.slice(-Math.min(limit, this.historyLimit));
  }
}
