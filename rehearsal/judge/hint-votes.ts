// The stand-in judge's hint votes. By default every ask of a hint prompt gets the canonical hint (cues.ts
// hintOf). With variants on (method hybrid's m hint votes), the asks of one prompt walk a seeded cycle, as a sampling
// judge varies: the canonical hint, a rewording, one too short to keep, the canonical again (a duplicate), no hint,
// so the hybrid's dispatch rules meet every case. Texts only; no HTTP.
import { hashUnit } from "../model/responder.ts";

export type HintVote = { score: 1; hint: string } | { score: -1 };

/** How many prompts' ask counts are remembered (oldest forgotten first). */
const REMEMBERED_PROMPTS = 4096;
/** The reference keeps hints longer than 10 characters. */
export const TOO_SHORT_HINT = "Be human.";

/** The canonical hint reworded (another sample of the judge), for the two kinds of hint hintOf gives. */
export function rewordedHint(canonical: string): string {
  if (/natural, human voice/.test(canonical)) return "Sound like a person talking, not an assistant reciting a disclaimer.";
  const quoted = /^The user said: "(.*)"\. Do what they ask there\.$/.exec(canonical)?.[1];
  return quoted !== undefined ? `Follow the user's correction: "${quoted}".` : `${canonical} Keep it brief.`;
}

/** One cycle of answers; any 3 asks in a row hold the canonical hint at least once. */
function cycle(canonical: string): HintVote[] {
  return [{ score: 1, hint: canonical }, { score: 1, hint: rewordedHint(canonical) }, { score: 1, hint: TOO_SHORT_HINT }, { score: 1, hint: canonical }, { score: -1 }];
}

export class HintVotes {
  private readonly asked = new Map<string, number>();

  /** `seed` sets where each prompt's cycle starts; `variants` false: always the canonical hint. */
  constructor(
    private readonly seed = 0,
    private readonly variants = false,
  ) {}

  /** The vote for this ask of `prompt` (the whole rendered hint prompt) whose canonical hint is `canonical`; null
   * canonical: the next state teaches nothing, every ask votes -1. */
  next(prompt: string, canonical: string | null): HintVote {
    if (canonical === null) return { score: -1 };
    if (!this.variants) return { score: 1, hint: canonical };
    const ask = this.asked.get(prompt) ?? 0;
    this.asked.delete(prompt);
    this.asked.set(prompt, ask + 1);
    if (this.asked.size > REMEMBERED_PROMPTS) this.asked.delete(this.asked.keys().next().value as string);
    const answers = cycle(canonical);
    const start = Math.floor(hashUnit(this.seed, promptHash(prompt)) * answers.length);
    return answers[(start + ask) % answers.length]!;
  }
}

function promptHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}
