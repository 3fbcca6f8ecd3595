// The line `start` prints when the episode driver has run every planned episode (the episodes-done event): what was
// done, that the run stays up, and where to look. Text only.
import type { RunEvent } from "../../contracts/events.ts";

export function episodesDoneLine(event: Extract<RunEvent, { type: "episodes-done" }>, runDir: string): string {
  const rate = event.outcomeRate === null ? "no outcome" : `outcome ${Math.round(event.outcomeRate * 100)} %`;
  return (
    `· episodes: all ${event.planned} planned episodes done (${event.scored} scored, ${event.failed} failed), ${rate}. ` +
    `The run stays up: \`npx openclaw-rl status --run ${runDir}\` (outcome by weight version and task group), ${runDir}/judgements.jsonl; ` +
    "Ctrl-C stops it, episodes.epochs runs more passes."
  );
}
