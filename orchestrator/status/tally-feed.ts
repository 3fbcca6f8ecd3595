// Feeds a run tally from the bus: the history the bus still holds first, then every event as it comes. Returns the
// unsubscribe. The one place a tally starts listening, so two readers of one bus never fold different histories.
import type { EventBus } from "../event-bus.ts";
import type { RunTally } from "./run-tally.ts";

export function followBus(bus: EventBus, tally: RunTally): () => void {
  for (const event of bus.recent()) tally.apply(event);
  return bus.subscribe((event) => tally.apply(event));
}
