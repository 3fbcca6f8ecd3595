// The stand-in judge's m hint votes on one turn, as a sampling judge answers the same hint prompt m times: the first
// ask gets the canonical hint (judge-cues.ts hintOf), later asks a seeded rotation of variants (a reworded hint, one
// too short to keep, a duplicate, no hint), so the hybrid's dispatch rules meet every case. Texts only; no HTTP.
import { hashUnit } from "./standin-model.ts";

export type HintVote = { score: 1; hint: string } | { score: -1 };

/** How many prompts' ask counts are remembered (oldest forgotten first). */
const REMEMBERED_PROMPTS = 4096;

/** The canonical hint reworded (another sample of the judge), for the two kinds of hint hintOf gives. */
function reworded(canonical: string): string {
  if (/natural, human voice/.test(canonical)) return "Sound like a person talking, not an assistant reciting a disclaimer.";
  const quoted = /^The user said: "(.*)"\. Do what they ask there\.$/.exec(canonical)?.[1];
  return quoted !== undefined ? `Follow the user's correction: "${quoted}".` : `${canonical} Keep it brief.`;
}

/** The alternatives after the first ask, in rotation order: reworded, too short (under 11 characters), the canonical
 * again (a duplicate), and no hint. */
function alternatives(canonical: string): HintVote[] {
  return [{ score: 1, hint: reworded(canonical) }, { score: 1, hint: "Be human." }, { score: 1, hint: canonical }, { score: -1 }];
}

export class HintVotes {
  private readonly asked = new Map<string, number>();

  constructor(private readonly seed = 0) {}

  /** The vote for this ask of `prompt` (the whole rendered hint prompt) whose canonical hint is `canonical`; null
   * canonical: the next state teaches nothing, every ask votes -1. */
  next(prompt: string, canonical: string | null): HintVote {
    if (canonical === null) return { score: -1 };
    const ask = this.asked.get(prompt) ?? 0;
    this.asked.delete(prompt);
    this.asked.set(prompt, ask + 1);
    if (this.asked.size > REMEMBERED_PROMPTS) this.asked.delete(this.asked.keys().next().value as string);
    if (ask === 0) return { score: 1, hint: canonical };
    const options = alternatives(canonical);
    const offset = Math.floor(hashUnit(this.seed, promptHash(prompt)) * options.length);
    return options[(offset + ask - 1) % options.length]!;
  }
}

function promptHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}
