// How a tracker follows the bus's weight events where the engines cannot be asked (the judging thread): a
// weights-update-end is an observed version, a weights-version-reset is slime starting again. Ignores other events.
import type { RunEvent } from "../../contracts/events.ts";
import type { WeightVersionTracker } from "./weight-version-tracker.ts";

export function followVersionEvent(tracker: Pick<WeightVersionTracker, "observe" | "reset">, event: RunEvent): void {
  if (event.type === "weights-update-end") tracker.observe(event.toVersion);
  else if (event.type === "weights-version-reset") tracker.reset();
}
