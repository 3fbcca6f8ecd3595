// The demo's closing line: where the turns it made after the last batch stand and when they train (the next batch
// fills up, the per-session share holds them back until relax_after_s, or training.max_wait_s trains a partial batch).
// Ignores the reward curve (demo.ts prints it).
import type { StatusSnapshot } from "../../contracts/status.ts";

/** `maxWaitS`: training.max_wait_s (0: off); `statusCommand`: the command that follows it on. */
export function closingLine(status: StatusSnapshot, maxWaitS: number, statusCommand: string): string {
  const { ready, batch_size: size, held_back: held } = status.samples;
  const follow = `; \`${statusCommand}\` follows it`;
  if (ready === 0) return `every judged sample has gone to the trainer${follow}`;
  const partial = maxWaitS > 0 ? `, or as a partial batch once the oldest waited training.max_wait_s ${maxWaitS} s` : " (training.max_wait_s, now 0: off, would train a partial batch after that many seconds)";
  if (held && ready >= size) {
    const over = held.sessions.map((unit) => `session ${unit.session} has ${unit.ready} ready`).join(", ");
    const when = held.completes_at === null ? `once they waited ${held.relax_after_s} s` : `in ${Math.max(0, Math.ceil((held.completes_at - Date.now()) / 1000))} s`;
    return `${ready} samples wait, held back by the per-session share (${over === "" ? "" : `${over}; `}a batch takes at most ${held.per_session} of one session's): they train ${when} (training.fair_batch.relax_after_s ${held.relax_after_s} s; smaller trains them sooner), or once another conversation's turn is judged${follow}`;
  }
  if (ready >= size) return `${ready} samples ready: the trainer takes a batch of ${size} when it next asks${follow}`;
  return `${ready} of ${size} samples ready: they train once ${size - ready} more turns are judged${partial}${follow}`;
}
