// What a restart of slime means for weight versions: its counter starts again at 0 ("default", then 1, 2, …), so
// the tracked version goes back to 0 and the bus says so (the judging thread follows the event). The signal is a
// new rollout-function session on the bridge, never a lower observed version (during an update several engines
// answer with slightly older versions).
import type { EventBus } from "../event-bus.ts";
import type { WeightVersionTracker } from "./weight-version-tracker.ts";

export function resetVersionsForTrainerRestart(tracker: Pick<WeightVersionTracker, "reset">, bus: EventBus, reason: string): void {
  const previous = tracker.reset();
  bus.emit({ type: "weights-version-reset", fromVersion: String(previous), reason });
}
