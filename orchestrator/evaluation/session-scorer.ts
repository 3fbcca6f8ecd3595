// The scorer: the judge engine reads one whole evaluated session with the persona's rubric and answers a score from 0
// to 10 in \boxed{}; `votes` calls, the valid ones averaged into the session's score in [0, 1].
import { SCORER_MARKER, SCORER_TRANSCRIPT, type PersonaOpener } from "../../contracts/evaluation.ts";
import { chatOnce, type ChatEndpoint } from "./chat-endpoint.ts";
import { transcriptText, type TranscriptTurn } from "./user-simulator.ts";

export interface ScorerSettings {
  endpoint: ChatEndpoint;
  votes: number;
  temperature: number;
  maxTokens: number;
}

export function scorerPrompt(opener: PersonaOpener, transcript: readonly TranscriptTurn[]): string {
  return [
    SCORER_MARKER,
    `## The user\n${opener.persona}`,
    `## Rubric\n${opener.rubric}`,
    `${SCORER_TRANSCRIPT}\n\n${transcriptText(transcript)}`,
    "Think briefly, then give one integer score from 0 (fails the rubric) to 10 (meets it fully) as \\boxed{score}.",
  ].join("\n\n");
}

/** The last \boxed{n} of a reply, n an integer or decimal within 0..10; null otherwise. */
export function parseScore(reply: string): number | null {
  const matches = [...reply.matchAll(/\\boxed\{\s*(-?\d+(?:\.\d+)?)\s*\}/g)];
  const value = matches.length > 0 ? Number(matches.at(-1)![1]) : Number.NaN;
  return Number.isFinite(value) && value >= 0 && value <= 10 ? value : null;
}

/** The votes (null for a failed or unparseable one) and their mean over 10, or null when none was valid. */
export async function scoreSession(settings: ScorerSettings, opener: PersonaOpener, transcript: readonly TranscriptTurn[], seed: number, signal?: AbortSignal) {
  const prompt = scorerPrompt(opener, transcript);
  const votes = await Promise.all(
    Array.from({ length: settings.votes }, (_, index) =>
      chatOnce(settings.endpoint, [{ role: "user", content: prompt }], { temperature: settings.temperature, max_tokens: settings.maxTokens, seed: seed + index }, signal).then(parseScore, () => null),
    ),
  );
  const valid = votes.filter((vote): vote is number => vote !== null);
  return { votes, score: valid.length === 0 ? null : valid.reduce((sum, vote) => sum + vote, 0) / valid.length / 10 };
}
