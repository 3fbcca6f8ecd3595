// The proxy's view of general-agent episodes (requests with X-Episode-Id): which have begun, how many of their steps
// completed, whether one is being generated, and whether the outcome came. Bounded (least recently used go first);
// main thread only. Rewards and samples are the judging thread's (episode-book.ts).
import type { EpisodeRef } from "../../contracts/turn.ts";

interface EpisodeState {
  groupId: string;
  /** Main turns that completed (each becomes a step closed for judging). */
  steps: number;
  inFlight: number;
  /** The weight version of the last completed step's last token. */
  lastVersion: string | null;
  ended: boolean;
}

export type EpisodeEndCheck =
  | { ok: true; groupId: string; steps: number; lastVersion: string | null }
  | { ok: false; status: 404 | 409; code: "episode_not_found" | "episode_ended" | "episode_step_in_flight"; message: string };

export class EpisodeRegistry {
  private readonly episodes = new Map<string, EpisodeState>();

  constructor(private readonly maxEpisodes: number) {}

  /** Whether the episode's outcome was already reported (a step after it is refused). */
  isEnded(id: string): boolean {
    return this.episodes.get(id)?.ended ?? false;
  }

  /** A step starts; true when it is the episode's first. */
  begin(episode: EpisodeRef): boolean {
    const known = this.episodes.get(episode.id);
    const state = known ?? { groupId: episode.groupId, steps: 0, inFlight: 0, lastVersion: null, ended: false };
    this.episodes.delete(episode.id);
    this.episodes.set(episode.id, state);
    state.inFlight += 1;
    while (this.episodes.size > this.maxEpisodes) this.episodes.delete(this.episodes.keys().next().value as string);
    return known === undefined;
  }

  /** A step ended; `completed` when it became a step for judging (not aborted, a main turn). */
  finish(episode: EpisodeRef, completed: boolean, lastVersion: string | null): void {
    const state = this.episodes.get(episode.id);
    if (!state) return;
    state.inFlight = Math.max(0, state.inFlight - 1);
    if (completed) {
      state.steps += 1;
      state.lastVersion = lastVersion ?? state.lastVersion;
    }
  }

  /** The outcome arrives: the episode ends unless it is unknown, already ended, or a step is still being generated. */
  end(id: string): EpisodeEndCheck {
    const state = this.episodes.get(id);
    if (!state) return { ok: false, status: 404, code: "episode_not_found", message: `no episode ${id} is known to the proxy (send its steps with X-Episode-Id first)` };
    if (state.ended) return { ok: false, status: 409, code: "episode_ended", message: `episode ${id} already reported its outcome` };
    if (state.inFlight > 0) return { ok: false, status: 409, code: "episode_step_in_flight", message: `a step of episode ${id} is still being generated; report the outcome after its answer` };
    state.ended = true;
    return { ok: true, groupId: state.groupId, steps: state.steps, lastVersion: state.lastVersion };
  }
}
